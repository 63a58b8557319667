// The RAII wrappers for OS handles (message queues, shared memory, files and
// directories) and the job's names: creators unlink, names are exclusive and
// private, moves leave exactly one owner.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <mqueue.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/job_names.h"
#include "common/message_queue.h"
#include "common/name_tags.h"
#include "common/shared_memory.h"
#include "test_util.h"

namespace bdmpi {
namespace {

namespace fs = std::filesystem;
using test_util::ScopedTempDir;
using test_util::UniqueIpcName;

// Where Linux shows POSIX queues and shared-memory objects ("/x" -> dir/x).
std::string MqueuePath(const std::string& name) { return "/dev/mqueue" + name; }
std::string ShmPath(const std::string& name) { return "/dev/shm" + name; }

// errno of opening queue `name`, 0 if it exists.
int MqOpenErrno(const std::string& name) {
  mqd_t mq = mq_open(name.c_str(), O_RDONLY);
  if (mq == static_cast<mqd_t>(-1)) return errno;
  mq_close(mq);
  return 0;
}

int ShmOpenErrno(const std::string& name) {
  int fd = shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

// Permission bits of a path; -1 if it does not exist.
int ModeOf(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 07777);
}

bool MqueueFsMounted() { return fs::is_directory("/dev/mqueue"); }

// The queue still works: `value` sent through it comes back.
void ExpectEcho(MessageQueue& queue, int value) {
  queue.Send(&value, sizeof value);
  int out = 0;
  EXPECT_EQ(queue.Receive(&out, sizeof out), sizeof out);
  EXPECT_EQ(out, value);
}

// ============================================================ MessageQueue

TEST(MessageQueueTest, CreatorUnlinksOnDestruction) {
  std::string name = UniqueIpcName("mq");
  {
    MessageQueue queue = MessageQueue::Create(name, 4, 64, false);
    EXPECT_TRUE(queue.valid());
    EXPECT_EQ(queue.name(), name);
    EXPECT_EQ(MqOpenErrno(name), 0);
    if (MqueueFsMounted()) {
      EXPECT_TRUE(fs::exists(MqueuePath(name)));
    }
  }
  EXPECT_EQ(MqOpenErrno(name), ENOENT);
  if (MqueueFsMounted()) {
    EXPECT_FALSE(fs::exists(MqueuePath(name)));
  }
}

TEST(MessageQueueTest, CreatedWithMode0600) {
  std::string name = UniqueIpcName("mq");
  MessageQueue queue = MessageQueue::Create(name, 4, 64, false);
  struct stat st {};
  ASSERT_EQ(fstat(queue.fd(), &st), 0) << std::strerror(errno);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  if (MqueueFsMounted()) {
    EXPECT_EQ(ModeOf(MqueuePath(name)), 0600);
  }
}

TEST(MessageQueueTest, ExclusiveCreateFailsOnExistingName) {
  std::string name = UniqueIpcName("mq");
  MessageQueue first = MessageQueue::Create(name, 4, 64, false);
  EXPECT_THROW(MessageQueue::Create(name, 4, 64, false), Error);
  // The failed attempt neither unlinked nor disturbed the first queue.
  EXPECT_EQ(MqOpenErrno(name), 0);
  ExpectEcho(first, 7);
}

TEST(MessageQueueTest, OpenerDoesNotUnlink) {
  std::string name = UniqueIpcName("mq");
  MessageQueue creator = MessageQueue::Create(name, 4, 64, false);
  {
    MessageQueue writer = MessageQueue::Open(name, O_WRONLY);
    EXPECT_TRUE(writer.valid());
    EXPECT_EQ(writer.max_messages(), 4);
    long value = 12345;
    writer.Send(&value, sizeof value);
  }
  EXPECT_EQ(MqOpenErrno(name), 0);
  long out = 0;
  EXPECT_EQ(creator.Receive(&out, sizeof out), sizeof out);
  EXPECT_EQ(out, 12345);
}

TEST(MessageQueueTest, OpenMissingQueueThrows) {
  EXPECT_THROW(MessageQueue::Open(UniqueIpcName("missing"), O_RDONLY), Error);
}

TEST(MessageQueueTest, DefaultIsInvalid) {
  MessageQueue queue;
  EXPECT_FALSE(queue.valid());
}

TEST(MessageQueueTest, MoveConstructionLeavesOneOwner) {
  std::string name = UniqueIpcName("mq");
  auto first = std::make_unique<MessageQueue>(
      MessageQueue::Create(name, 4, 64, false));
  MessageQueue second(std::move(*first));
  EXPECT_FALSE(first->valid());
  EXPECT_TRUE(second.valid());
  EXPECT_EQ(second.name(), name);
  first.reset();  // the moved-from object must not unlink
  EXPECT_EQ(MqOpenErrno(name), 0);
  ExpectEcho(second, 3);
  second = MessageQueue();
  EXPECT_EQ(MqOpenErrno(name), ENOENT);
}

TEST(MessageQueueTest, MoveAssignmentUnlinksTheOverwrittenQueue) {
  std::string old_name = UniqueIpcName("old");
  std::string new_name = UniqueIpcName("new");
  MessageQueue target = MessageQueue::Create(old_name, 4, 64, false);
  {
    MessageQueue source = MessageQueue::Create(new_name, 4, 64, false);
    target = std::move(source);
    EXPECT_FALSE(source.valid());  // NOLINT(bugprone-use-after-move)
  }
  EXPECT_EQ(MqOpenErrno(old_name), ENOENT);
  EXPECT_EQ(MqOpenErrno(new_name), 0);
  EXPECT_EQ(target.name(), new_name);
  ExpectEcho(target, 9);
}

TEST(MessageQueueTest, TrySendReturnsFalseWhenFull) {
  MessageQueue queue =
      MessageQueue::Create(UniqueIpcName("full"), 2, 16, /*nonblocking=*/true);
  int value = 1;
  EXPECT_TRUE(queue.TrySend(&value, sizeof value));
  EXPECT_TRUE(queue.TrySend(&value, sizeof value));
  EXPECT_FALSE(queue.TrySend(&value, sizeof value));
  // Room again after a receive.
  int out = 0;
  EXPECT_EQ(queue.TryReceive(&out, sizeof out), sizeof out);
  EXPECT_TRUE(queue.TrySend(&value, sizeof value));
}

TEST(MessageQueueTest, TryReceiveReturnsZeroWhenEmpty) {
  MessageQueue queue =
      MessageQueue::Create(UniqueIpcName("empty"), 2, 16, /*nonblocking=*/true);
  char buffer[16];
  EXPECT_EQ(queue.TryReceive(buffer, sizeof buffer), 0u);
  int value = 5;
  ASSERT_TRUE(queue.TrySend(&value, sizeof value));
  EXPECT_EQ(queue.TryReceive(buffer, sizeof buffer), sizeof value);
  EXPECT_EQ(queue.TryReceive(buffer, sizeof buffer), 0u);
}

// The master's wait while it holds a hand-over (master/sched/handover_hold.h).
TEST(MessageQueueTest, ReceiveUntilGivesUpAtTheDeadline) {
  MessageQueue queue =
      MessageQueue::Create(UniqueIpcName("until"), 2, 16, /*nonblocking=*/false);
  char buffer[16];
  timespec deadline{};
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += 2'000'000;  // 2 ms
  if (deadline.tv_nsec >= 1'000'000'000) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1'000'000'000;
  }
  EXPECT_FALSE(queue.ReceiveUntil(buffer, sizeof buffer, deadline).has_value());
  int value = 5;
  queue.Send(&value, sizeof value);
  EXPECT_EQ(queue.ReceiveUntil(buffer, sizeof buffer, deadline), sizeof value);
}

TEST(MessageQueueTest, MessagesKeepTheirSizeAndOrder) {
  MessageQueue queue = MessageQueue::Create(UniqueIpcName("sizes"), 8, 32, true);
  for (std::size_t size = 1; size <= 8; ++size) {
    std::vector<char> message(size, static_cast<char>('a' + size));
    ASSERT_TRUE(queue.TrySend(message.data(), message.size()));
  }
  for (std::size_t size = 1; size <= 8; ++size) {
    char buffer[32] = {};
    ASSERT_EQ(queue.TryReceive(buffer, sizeof buffer), size);
    EXPECT_EQ(buffer[0], static_cast<char>('a' + size));
    EXPECT_EQ(buffer[size - 1], static_cast<char>('a' + size));
  }
}

TEST(MessageQueueTest, MessageLongerThanCapacityIsAnError) {
  MessageQueue queue = MessageQueue::Create(UniqueIpcName("long"), 2, 32, true);
  char message[20] = {};
  ASSERT_TRUE(queue.TrySend(message, sizeof message));
  char small[8];
  EXPECT_THROW(queue.TryReceive(small, sizeof small), Error);
}

TEST(MessageQueueTest, QueueBeyondMsgMaxIsCapped) {
  long msg_max = ReadMqueueLimit("msg_max");
  if (msg_max <= 0) GTEST_SKIP() << "/proc/sys/fs/mqueue/msg_max unreadable";
  MessageQueue queue = MessageQueue::Create(UniqueIpcName("cap"), msg_max + 5,
                                            16, /*nonblocking=*/true);
  EXPECT_EQ(queue.max_messages(), msg_max);
  mq_attr attr{};
  ASSERT_EQ(mq_getattr(static_cast<mqd_t>(queue.fd()), &attr), 0);
  EXPECT_EQ(attr.mq_maxmsg, msg_max);
  EXPECT_EQ(attr.mq_msgsize, 16);
  // Exactly msg_max messages fit.
  int value = 0;
  for (long i = 0; i < msg_max; ++i)
    ASSERT_TRUE(queue.TrySend(&value, sizeof value)) << i;
  EXPECT_FALSE(queue.TrySend(&value, sizeof value));
}

TEST(MessageQueueTest, QueueWithinMsgMaxIsNotCapped) {
  MessageQueue queue = MessageQueue::Create(UniqueIpcName("nocap"), 3, 16, true);
  EXPECT_EQ(queue.max_messages(), 3);
}

TEST(MessageQueueTest, DescriptorIsPollable) {
  MessageQueue queue = MessageQueue::Create(UniqueIpcName("poll"), 2, 16, true);
  pollfd entry{queue.fd(), POLLIN, 0};
  EXPECT_EQ(poll(&entry, 1, 0), 0);
  int value = 1;
  ASSERT_TRUE(queue.TrySend(&value, sizeof value));
  EXPECT_EQ(poll(&entry, 1, 1000), 1);
  EXPECT_TRUE(entry.revents & POLLIN);
}

TEST(MessageQueueTest, ReadMqueueLimit) {
  EXPECT_GT(ReadMqueueLimit("msg_max"), 0);
  EXPECT_GT(ReadMqueueLimit("msgsize_max"), 0);
  EXPECT_EQ(ReadMqueueLimit("no_such_limit"), -1);
}

TEST(MessageQueueTest, QueuesMaxAdviceRaisesTheLimit) {
  // It used to advise 1024 when queues_max already was 1024.
  for (long now : {-1L, 0L, 256L, 511L, 512L, 1024L, 4096L})
    EXPECT_GT(SuggestedQueuesMax(now), now) << now;
  EXPECT_EQ(SuggestedQueuesMax(256), 1024);
}

// ============================================================ SharedMemory

TEST(SharedMemoryTest, CreatorUnlinksOnDestruction) {
  std::string name = UniqueIpcName("shm");
  {
    SharedMemory shm = SharedMemory::Create(name, 4096);
    EXPECT_EQ(shm.name(), name);
    EXPECT_EQ(ShmOpenErrno(name), 0);
    EXPECT_TRUE(fs::exists(ShmPath(name)));
  }
  EXPECT_EQ(ShmOpenErrno(name), ENOENT);
  EXPECT_FALSE(fs::exists(ShmPath(name)));
}

TEST(SharedMemoryTest, CreatedWithMode0600AndSize) {
  std::string name = UniqueIpcName("shm");
  SharedMemory shm = SharedMemory::Create(name, 12345);
  EXPECT_EQ(shm.size(), 12345u);
  ASSERT_NE(shm.data(), nullptr);
  int fd = shm_open(name.c_str(), O_RDONLY, 0);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  struct stat st {};
  EXPECT_EQ(fstat(fd, &st), 0);
  close(fd);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_size, 12345);
  EXPECT_EQ(ModeOf(ShmPath(name)), 0600);
}

TEST(SharedMemoryTest, NewObjectIsZeroFilled) {
  SharedMemory shm = SharedMemory::Create(UniqueIpcName("shm"), 8192);
  for (std::size_t i = 0; i < shm.size(); ++i)
    ASSERT_EQ(shm.data()[i], std::byte{0}) << i;
}

TEST(SharedMemoryTest, ExclusiveCreateFailsOnExistingName) {
  std::string name = UniqueIpcName("shm");
  SharedMemory first = SharedMemory::Create(name, 4096);
  first.data()[0] = std::byte{42};
  EXPECT_THROW(SharedMemory::Create(name, 4096), Error);
  // The failed attempt neither unlinked nor truncated the first object.
  EXPECT_EQ(ShmOpenErrno(name), 0);
  SharedMemory again = SharedMemory::Open(name, 4096);
  EXPECT_EQ(again.data()[0], std::byte{42});
}

TEST(SharedMemoryTest, OpenerSeesCreatorsWritesAndDoesNotUnlink) {
  std::string name = UniqueIpcName("shm");
  SharedMemory creator = SharedMemory::Create(name, 4096);
  {
    SharedMemory opener = SharedMemory::Open(name, 4096);
    EXPECT_NE(opener.data(), creator.data());
    creator.data()[100] = std::byte{0x5a};
    EXPECT_EQ(opener.data()[100], std::byte{0x5a});
    opener.data()[4095] = std::byte{0x33};
    EXPECT_EQ(creator.data()[4095], std::byte{0x33});
  }
  EXPECT_EQ(ShmOpenErrno(name), 0);
  EXPECT_EQ(creator.data()[100], std::byte{0x5a});
}

TEST(SharedMemoryTest, OpenMissingObjectThrows) {
  EXPECT_THROW(SharedMemory::Open(UniqueIpcName("missing"), 4096), Error);
}

TEST(SharedMemoryTest, MoveConstructionLeavesOneOwner) {
  std::string name = UniqueIpcName("shm");
  auto first = std::make_unique<SharedMemory>(SharedMemory::Create(name, 4096));
  std::byte* data = first->data();
  SharedMemory second(std::move(*first));
  EXPECT_EQ(first->data(), nullptr);
  EXPECT_EQ(second.data(), data);
  EXPECT_EQ(second.size(), 4096u);
  EXPECT_EQ(second.name(), name);
  first.reset();  // must neither unmap nor unlink
  EXPECT_EQ(ShmOpenErrno(name), 0);
  second.data()[1] = std::byte{1};  // still mapped
  second = SharedMemory();
  EXPECT_EQ(ShmOpenErrno(name), ENOENT);
}

TEST(SharedMemoryTest, MoveAssignmentUnlinksTheOverwrittenObject) {
  std::string old_name = UniqueIpcName("old");
  std::string new_name = UniqueIpcName("new");
  SharedMemory target = SharedMemory::Create(old_name, 4096);
  target = SharedMemory::Create(new_name, 8192);
  EXPECT_EQ(ShmOpenErrno(old_name), ENOENT);
  EXPECT_EQ(ShmOpenErrno(new_name), 0);
  EXPECT_EQ(target.name(), new_name);
  EXPECT_EQ(target.size(), 8192u);
  target.data()[8191] = std::byte{1};
}

// ============================================================ files

TEST(FileIoTest, WriteNewFileAndReadFilePrefixRoundTrip) {
  ScopedTempDir dir;
  std::string path = dir.Child("spill");
  std::vector<std::uint8_t> data(100000);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<std::uint8_t>(i * 31 + 7);
  WriteNewFile(path, data.data(), data.size());
  EXPECT_EQ(fs::file_size(path), data.size());
  std::vector<std::uint8_t> back(data.size());
  EXPECT_EQ(ReadFilePrefix(path, back.data(), back.size()), data.size());
  EXPECT_EQ(back, data);
}

TEST(FileIoTest, WriteNewFileMode0600) {
  ScopedTempDir dir;
  std::string path = dir.Child("spill");
  char byte = 'x';
  WriteNewFile(path, &byte, 1);
  EXPECT_EQ(ModeOf(path), 0600);
}

TEST(FileIoTest, WriteNewFileRefusesToOverwrite) {
  ScopedTempDir dir;
  std::string path = dir.Child("spill");
  const char first[] = "first";
  const char second[] = "second, longer";
  WriteNewFile(path, first, sizeof first);
  EXPECT_THROW(WriteNewFile(path, second, sizeof second), Error);
  // The existing file is untouched (not truncated, not removed).
  char back[64] = {};
  EXPECT_EQ(ReadFilePrefix(path, back, sizeof back), sizeof first);
  EXPECT_STREQ(back, "first");
}

TEST(FileIoTest, WriteNewFileEmpty) {
  ScopedTempDir dir;
  std::string path = dir.Child("empty");
  WriteNewFile(path, nullptr, 0);
  EXPECT_TRUE(fs::exists(path));
  char back[4];
  EXPECT_EQ(ReadFilePrefix(path, back, sizeof back), 0u);
}

TEST(FileIoTest, ReadFilePrefixStopsAtCapacity) {
  ScopedTempDir dir;
  std::string path = dir.Child("spill");
  const char text[] = "0123456789";
  WriteNewFile(path, text, 10);
  char back[4] = {};
  EXPECT_EQ(ReadFilePrefix(path, back, 4), 4u);
  EXPECT_EQ(std::string(back, 4), "0123");
  EXPECT_EQ(ReadFilePrefix(path, back, 0), 0u);
}

TEST(FileIoTest, ReadFilePrefixOfMissingFileThrows) {
  ScopedTempDir dir;
  char back[4];
  EXPECT_THROW(ReadFilePrefix(dir.Child("missing"), back, sizeof back), Error);
}

TEST(FileIoTest, WriteNewFileInMissingDirectoryThrows) {
  ScopedTempDir dir;
  char byte = 'x';
  EXPECT_THROW(WriteNewFile(dir.Child("no/such/dir"), &byte, 1), Error);
}

// A full disk is a user's problem: the error names the directory, ENOSPC
// and the option to change, with MPI_ERR_NO_SPACE's class.
TEST(FileIoTest, WriteErrorOnFullDiskNamesTheDirectory) {
  try {
    ThrowWriteError("write", "/scratch/bdmpi-x/n0/0000000000000001", ENOSPC);
    FAIL() << "no exception";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), kErrNoSpace);
    std::string text = error.what();
    EXPECT_NE(text.find("ENOSPC"), std::string::npos) << text;
    EXPECT_NE(text.find("scratch directory /scratch/bdmpi-x/n0 "), std::string::npos) << text;
    EXPECT_NE(text.find("--scratch-dir"), std::string::npos) << text;
  }
}

// A collective's spill file on a full disk: an error at creation, not a
// SIGBUS when the network thread writes through the mapping (which killed
// the master). Needs root for the small tmpfs; skipped otherwise.
TEST(FileIoTest, MappedFileCreateOnFullDiskThrows) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  ScopedTempDir dir;
  ASSERT_EQ(mount("tmpfs", dir.path().c_str(), "tmpfs", 0, "size=64k"), 0) << strerror(errno);
  std::string path = dir.Child("collective");
  try {
    MappedFile map = MappedFile::CreateReadWrite(path, 1 << 20);
    ADD_FAILURE() << "a 1 MiB mapping on a 64 KiB tmpfs was created";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), kErrNoSpace) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));  // not left behind
  umount(dir.path().c_str());
}

TEST(FileIoTest, OtherWriteErrorsKeepTheSystemMessage) {
  try {
    ThrowWriteError("open", "/scratch/file", EACCES);
    FAIL() << "no exception";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), "open /scratch/file: " + std::string(strerror(EACCES)));
  }
}

TEST(FileIoTest, OwnedFileUnlinksOnDestruction) {
  ScopedTempDir dir;
  std::string path = dir.Child("owned");
  char byte = 'x';
  WriteNewFile(path, &byte, 1);
  {
    OwnedFile file(path);
    EXPECT_EQ(file.path(), path);
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(FileIoTest, MappedFileCreateWriteAndReadBack) {
  ScopedTempDir dir;
  std::string path = dir.Child("mapped");
  {
    MappedFile file = MappedFile::CreateReadWrite(path, 10000);
    ASSERT_NE(file.data(), nullptr);
    EXPECT_EQ(file.size(), 10000u);
    for (std::size_t i = 0; i < file.size(); ++i)
      ASSERT_EQ(file.data()[i], std::byte{0}) << i;
    for (std::size_t i = 0; i < file.size(); ++i)
      file.data()[i] = static_cast<std::byte>(i % 251);
  }
  EXPECT_EQ(fs::file_size(path), 10000u);
  EXPECT_EQ(ModeOf(path), 0600);
  std::vector<std::byte> back(10000);
  ASSERT_EQ(ReadFilePrefix(path, back.data(), back.size()), back.size());
  for (std::size_t i = 0; i < back.size(); ++i)
    ASSERT_EQ(back[i], static_cast<std::byte>(i % 251)) << i;
  MappedFile reader = MappedFile::OpenRead(path, 10000);
  EXPECT_EQ(reader.data()[250], std::byte{250});
  EXPECT_EQ(reader.data()[251], std::byte{0});
}

TEST(FileIoTest, MappedFileOpenReadWriteChangesTheFile) {
  ScopedTempDir dir;
  std::string path = dir.Child("mapped");
  const char text[] = "abcdefgh";
  WriteNewFile(path, text, 8);
  {
    MappedFile file = MappedFile::OpenReadWrite(path, 8);
    EXPECT_EQ(file.data()[0], std::byte{'a'});
    file.data()[0] = std::byte{'X'};
    file.data()[7] = std::byte{'Y'};
  }
  char back[8];
  ASSERT_EQ(ReadFilePrefix(path, back, 8), 8u);
  EXPECT_EQ(std::string(back, 8), "XbcdefgY");
}

TEST(FileIoTest, MappedFileCreateRefusesExistingFile) {
  ScopedTempDir dir;
  std::string path = dir.Child("mapped");
  const char text[] = "keep";
  WriteNewFile(path, text, 4);
  EXPECT_THROW(MappedFile::CreateReadWrite(path, 100), Error);
  EXPECT_EQ(fs::file_size(path), 4u);
}

TEST(FileIoTest, MappedFileOfMissingFileThrows) {
  ScopedTempDir dir;
  EXPECT_THROW(MappedFile::OpenRead(dir.Child("missing"), 8), Error);
  EXPECT_THROW(MappedFile::OpenReadWrite(dir.Child("missing"), 8), Error);
}

TEST(FileIoTest, MappedFileOfZeroBytes) {
  ScopedTempDir dir;
  MappedFile file = MappedFile::CreateReadWrite(dir.Child("empty"), 0);
  EXPECT_EQ(file.data(), nullptr);
  EXPECT_EQ(file.size(), 0u);
  MappedFile reader = MappedFile::OpenRead(dir.Child("empty"), 0);
  EXPECT_EQ(reader.size(), 0u);
}

TEST(FileIoTest, MappedFileMoveLeavesOneMapping) {
  ScopedTempDir dir;
  std::string path = dir.Child("mapped");
  auto first = std::make_unique<MappedFile>(MappedFile::CreateReadWrite(path, 64));
  std::byte* data = first->data();
  MappedFile second(std::move(*first));
  EXPECT_EQ(first->data(), nullptr);
  EXPECT_EQ(first->size(), 0u);
  first.reset();  // must not unmap
  EXPECT_EQ(second.data(), data);
  second.data()[63] = std::byte{9};
}

TEST(FileIoTest, MakePrivateDirIs0700) {
  ScopedTempDir dir;
  std::string path = dir.Child("job");
  MakePrivateDir(path);
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_EQ(ModeOf(path), 0700);
}

TEST(FileIoTest, MakePrivateDirIs0700EvenWithPermissiveUmask) {
  ScopedTempDir dir;
  std::string path = dir.Child("job");
  mode_t old = umask(0);
  MakePrivateDir(path);
  umask(old);
  EXPECT_EQ(ModeOf(path), 0700);
}

TEST(FileIoTest, MakePrivateDirFailsIfItExists) {
  ScopedTempDir dir;
  std::string path = dir.Child("job");
  MakePrivateDir(path);
  char byte = 'x';
  WriteNewFile(path + "/keep", &byte, 1);
  EXPECT_THROW(MakePrivateDir(path), Error);
  EXPECT_TRUE(fs::exists(path + "/keep"));
}

TEST(FileIoTest, RemoveTreeRemovesEverything) {
  ScopedTempDir dir;
  std::string root = dir.Child("job");
  MakePrivateDir(root);
  MakePrivateDir(root + "/n0");
  MakePrivateDir(root + "/n1");
  char byte = 'x';
  WriteNewFile(root + "/n0/a", &byte, 1);
  WriteNewFile(root + "/n1/b", &byte, 1);
  WriteNewFile(root + "/c", &byte, 1);
  RemoveTree(root);
  EXPECT_FALSE(fs::exists(root));
  EXPECT_TRUE(fs::is_directory(dir.path()));
}

TEST(FileIoTest, RemoveTreeOfMissingPathIsHarmless) {
  ScopedTempDir dir;
  RemoveTree(dir.Child("missing"));
  RemoveTree("");
  EXPECT_TRUE(fs::is_directory(dir.path()));
}

// ============================================================ job names

TEST(JobNamesTest, NamesStartWithPrefixAndCarryJobId) {
  JobNames names("0123abcd4567ef89", 3);
  std::string prefix = names.Prefix();
  EXPECT_EQ(prefix, "/bdmpi-0123abcd4567ef89-");
  std::string tag = NewNameTag();
  std::vector<std::string> all = {names.RequestQueue(tag), names.GoQueue(0, tag),
                                  names.GoQueue(17, tag), names.Window(0, tag),
                                  names.Window(17, tag), names.StorageTable(tag),
                                  names.Liveness(tag)};
  for (const std::string& name : all) {
    EXPECT_EQ(name.rfind(names.NodePrefix(), 0), 0u) << name;
    EXPECT_EQ(name.rfind(prefix, 0), 0u) << name;
    // A valid POSIX IPC name: one leading '/', no other, short enough.
    EXPECT_EQ(name.find('/', 1), std::string::npos) << name;
    EXPECT_LE(name.size(), 255u) << name;
    EXPECT_EQ(name.substr(name.size() - tag.size()), tag) << name;
  }
  EXPECT_EQ(names.job_id(), "0123abcd4567ef89");
  EXPECT_EQ(names.node(), 3);
}

// Another local user can learn a job's id (its masters' command lines, the
// names of its objects) but not the tag of a name before the object exists.
TEST(JobNamesTest, TagsAreRandomAndChecked) {
  std::set<std::string> tags;
  for (int i = 0; i < 1000; ++i) {
    std::string tag = NewNameTag();
    EXPECT_EQ(tag.size(), 16u);
    EXPECT_EQ(tag.find_first_not_of("0123456789abcdef"), std::string::npos) << tag;
    EXPECT_TRUE(tags.insert(tag).second) << tag;
  }
  JobNames names("job", 2);
  std::string go = names.GoQueue(7, "00112233aabbccdd");
  EXPECT_TRUE(JobNames::IsTagged(go, names.GoQueue(7, "")));
  EXPECT_FALSE(JobNames::IsTagged(go, names.GoQueue(1, "")));
  EXPECT_FALSE(JobNames::IsTagged(names.GoQueue(7, "0011"), names.GoQueue(7, "")));
  EXPECT_FALSE(JobNames::IsTagged(names.GoQueue(7, "00112233aabbccdX"), names.GoQueue(7, "")));
  EXPECT_FALSE(JobNames::IsTagged(JobNames("job2", 2).GoQueue(7, "00112233aabbccdd"),
                                  names.GoQueue(7, "")));
}

TEST(JobNamesTest, LivenessNamesParse) {
  JobNames names("my-job_1", 12);
  std::string live = names.Liveness(NewNameTag());
  for (const std::string& name : {live, live.substr(1)}) {
    std::optional<JobNames> parsed = JobNames::OfLiveness(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(parsed->job_id(), "my-job_1");
    EXPECT_EQ(parsed->node(), 12);
  }
  EXPECT_FALSE(JobNames::OfLiveness(names.Liveness("0011")).has_value());
  EXPECT_FALSE(JobNames::OfLiveness(names.Window(0, NewNameTag())).has_value());
  EXPECT_FALSE(JobNames::OfLiveness("/bdmpi-x-live-00112233aabbccdd").has_value());
  EXPECT_FALSE(JobNames::OfLiveness("/bdmpi-a b-n0-live-00112233aabbccdd").has_value());
}

TEST(JobNamesTest, NamesAreDistinct) {
  std::set<std::string> seen;
  const std::string tag = "00112233aabbccdd";
  for (int node : {0, 1, 2, 11}) {
    JobNames names("job", node);
    EXPECT_TRUE(seen.insert(names.RequestQueue(tag)).second);
    for (int slave : {0, 1, 2, 11, 12, 111}) {
      EXPECT_TRUE(seen.insert(names.GoQueue(slave, tag)).second) << node << " " << slave;
      EXPECT_TRUE(seen.insert(names.Window(slave, tag)).second) << node << " " << slave;
    }
  }
  // Two jobs never share a name, nor do node 1's prefix and node 11's.
  EXPECT_NE(JobNames("a", 0).RequestQueue(tag), JobNames("b", 0).RequestQueue(tag));
  EXPECT_NE(JobNames("a", 1).NodePrefix().rfind(JobNames("a", 11).NodePrefix(), 0), 0u);
  EXPECT_NE(JobNames("a", 11).NodePrefix().rfind(JobNames("a", 1).NodePrefix(), 0), 0u);
}

// A collector names a dead node's objects from the key in its record; the
// tags of different objects (or keys) have nothing in common.
TEST(JobNamesTest, TagsFromAKey) {
  std::string key = NameTags::NewKey();
  EXPECT_EQ(key.size(), 32u);
  NameTags tags(key), same(key), other(NameTags::NewKey());
  EXPECT_EQ(tags.Of("go3"), same.Of("go3"));
  EXPECT_NE(tags.Of("go3"), other.Of("go3"));
  EXPECT_NE(tags.Of("go3"), tags.Of("go4"));
  EXPECT_NE(tags.Of("go1"), tags.Of("win1"));
  // RFC 4231 test case 2: HMAC-SHA256("Jefe", "what do ya want for nothing?").
  EXPECT_EQ(NameTags("Jefe").Of("what do ya want for nothing?"), "5bdcc146bf60754e");
  JobNames names("job", 1);
  NodeObjectNames objects = NamesOfNodeObjects(names, tags, 3);
  ASSERT_EQ(objects.go_queues.size(), 3u);
  ASSERT_EQ(objects.windows.size(), 3u);
  EXPECT_EQ(objects.go_queues[2], names.GoQueue(2, tags.Of("go2")));
  EXPECT_EQ(objects.windows[0], names.Window(0, tags.Of("win0")));
  EXPECT_TRUE(JobNames::IsTagged(objects.request_queue, names.RequestQueue("")));
  EXPECT_TRUE(JobNames::IsTagged(objects.storage_table, names.StorageTable("")));
}

TEST(JobNamesTest, NamesWorkAsRealIpcObjects) {
  JobNames names(NewJobId(), 0);
  std::string go = names.GoQueue(5, NewNameTag()), window = names.Window(5, NewNameTag());
  MessageQueue queue = MessageQueue::Create(go, 2, 16, true);
  SharedMemory memory = SharedMemory::Create(window, 4096);
  EXPECT_EQ(MqOpenErrno(go), 0);
  EXPECT_EQ(ShmOpenErrno(window), 0);
}

TEST(JobNamesTest, Directories) {
  JobNames names("abc123", 4);
  EXPECT_EQ(names.SpillDir("/scratch", "00112233aabbccdd"),
            "/scratch/bdmpi-abc123-n4-00112233aabbccdd");
  EXPECT_EQ(names.MemoryDir("00112233aabbccdd"),
            "/dev/shm/bdmpi-abc123-n4-payloads-00112233aabbccdd");
  EXPECT_NE(JobNames("abc123", 5).SpillDir("/scratch", "t"), names.SpillDir("/scratch", "t"));
}

TEST(JobNamesTest, SpillFileName) {
  EXPECT_EQ(SpillFileName("/d", 0), "/d/0000000000000000");
  EXPECT_EQ(SpillFileName("/d", 0xffffffffffffffffull), "/d/ffffffffffffffff");
  EXPECT_EQ(SpillFileName("/d", (3ull << 40) | 9), "/d/0000030000000009");
}

TEST(JobNamesTest, ValidJobIdAccepts) {
  EXPECT_TRUE(ValidJobId("a"));
  EXPECT_TRUE(ValidJobId("0123456789abcdef"));
  EXPECT_TRUE(ValidJobId("Job_1-test"));
  EXPECT_TRUE(ValidJobId(std::string(32, 'z')));
}

TEST(JobNamesTest, ValidJobIdRejects) {
  EXPECT_FALSE(ValidJobId(""));
  EXPECT_FALSE(ValidJobId(std::string(33, 'z')));
  for (const char* bad : {"a/b", "../x", "a b", "a.b", "a\nb", "/", "é", "a*",
                          "a%s"})
    EXPECT_FALSE(ValidJobId(bad)) << bad;
  EXPECT_FALSE(ValidJobId(std::string("a\0b", 3)));
}

TEST(JobNamesTest, NewJobIdIs16HexDigitsAndValid) {
  for (int i = 0; i < 20; ++i) {
    std::string id = NewJobId();
    ASSERT_EQ(id.size(), 16u) << id;
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    EXPECT_TRUE(ValidJobId(id)) << id;
  }
}

TEST(JobNamesTest, NewJobIdDiffersBetweenCalls) {
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) ids.insert(NewJobId());
  EXPECT_EQ(ids.size(), 100u);
}

}  // namespace
}  // namespace bdmpi
