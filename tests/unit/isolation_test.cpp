// The job's private directories, spill files checked by inode, and the
// liveness lock that tells a dead job from a live one, and the names shared
// between jobs (common/private_dir.h, spill_dir.h, job_liveness.h,
// rendezvous.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/job_liveness.h"
#include "common/job_names.h"
#include "common/private_dir.h"
#include "common/rendezvous.h"
#include "common/spill_dir.h"
#include "test_util.h"

namespace bdmpi {
namespace {

namespace fs = std::filesystem;
using test_util::ScopedTempDir;

std::string UniqueJobId() {
  static std::atomic<int> counter{0};
  return "ut" + std::to_string(getpid()) + "x" + std::to_string(counter++);
}

TEST(JobDirTest, CreatedPrivateAndExclusive) {
  ScopedTempDir scratch;
  std::string path = JobNames("job", 0).SpillDir(scratch.path(), NewNameTag());
  UniqueFd dir = CreatePrivateDir(path);
  struct stat info {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700u);
  EXPECT_TRUE(IsPrivateDir(path));
  // Never joined: whoever made it, an existing directory is not the job's.
  EXPECT_ERROR_WITH(CreatePrivateDir(path), "File exists");
}

TEST(JobDirTest, RefusesOpenModeAndSymlink) {
  ScopedTempDir scratch;
  std::string open_dir = scratch.Child("bdmpi-open");
  ASSERT_EQ(mkdir(open_dir.c_str(), 0755), 0);
  chmod(open_dir.c_str(), 0755);
  EXPECT_ERROR_WITH(OpenPrivateDir(open_dir), "its mode is 0755, not 0700");
  EXPECT_FALSE(IsPrivateDir(open_dir));
  std::string link = scratch.Child("bdmpi-link");
  ASSERT_EQ(symlink(scratch.path().c_str(), link.c_str()), 0);
  EXPECT_ERROR_WITH(OpenPrivateDir(link), "is a symlink or not a directory");
  EXPECT_FALSE(IsPrivateDir(link));
}

class SpillDirTest : public ::testing::Test {
 protected:
  SpillDirTest()
      : path_(scratch_.Child("n0")),
        dir_(CreatePrivateDirAt(AT_FDCWD, path_, path_), path_) {}
  ScopedTempDir scratch_;
  std::string path_;
  SpillDir dir_;
};

TEST_F(SpillDirTest, ReadsBackWhatWasWritten) {
  std::vector<char> data(1000, 'a'), back(1000);
  std::uint64_t inode = dir_.Write(7, data.data(), data.size());
  dir_.ReadPrefix(7, inode, back.data(), back.size());
  EXPECT_EQ(back, data);
  SpillDir slave_view = SpillDir::OpenExisting(path_, dir_.inode());
  slave_view.ReadPrefix(7, inode, back.data(), back.size());
  EXPECT_EQ(back, data);
}

TEST_F(SpillDirTest, ReplacedFileIsRefused) {
  char byte = 'a';
  std::uint64_t inode = dir_.Write(7, &byte, 1);
  std::string forged = path_ + "/forged";
  int fd = open(forged.c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "b", 1), 1);
  close(fd);
  ASSERT_EQ(rename(forged.c_str(), dir_.FilePath(7).c_str()), 0);
  char back = 0;
  EXPECT_ERROR_WITH(dir_.ReadPrefix(7, inode, &back, 1), "is not the file the job wrote");
  EXPECT_EQ(back, 0);
}

TEST_F(SpillDirTest, SymlinkIsRefused) {
  ASSERT_EQ(symlink("/etc/hostname", dir_.FilePath(8).c_str()), 0);
  char back = 0;
  EXPECT_ERROR_WITH(dir_.ReadPrefix(8, 0, &back, 1), "replaced by a symlink");
  EXPECT_ERROR_WITH(dir_.Write(8, &back, 1), "create");
}

TEST_F(SpillDirTest, MovedDirectoryIsRefused) {
  ASSERT_EQ(rename(path_.c_str(), (path_ + ".moved").c_str()), 0);
  ASSERT_EQ(mkdir(path_.c_str(), 0700), 0);
  char byte = 'a';
  EXPECT_ERROR_WITH(dir_.Write(9, &byte, 1), "was replaced or moved");
  EXPECT_ERROR_WITH(SpillDir::OpenExisting(path_, dir_.inode()), "is not the one the master");
}

TEST(JobLivenessTest, LiveWhileClaimedAndIdInUse) {
  JobNames names(UniqueJobId(), 0);
  NodeLease lease = NodeLease::Claim(names, {"s", 3, "/scratch/a", "", ""});
  EXPECT_TRUE(JobNames::IsTagged(lease.name(), names.Liveness("")));
  EXPECT_EQ(LivenessFiles(names), std::vector<std::string>{lease.name()});
  EXPECT_FALSE(LockIfDead(lease.name(), 50).has_value());
  EXPECT_ERROR_WITH(NodeLease::Claim(names, {"t", 1, "/x", "", ""}), "is in use on this node");
  // The refused claim removed its own file, and only that.
  EXPECT_EQ(LivenessFiles(names), std::vector<std::string>{lease.name()});
  NodeLease other_node = NodeLease::Claim(JobNames(names.job_id(), 10), {"s", 1, "/x", "", ""});
}

// bdmpiexec --status finds a master from its record before any rank exists.
TEST(JobLivenessTest, RecordNamesTheMasterWhileLive) {
  JobNames names(UniqueJobId(), 1);
  NodeLease lease = NodeLease::Claim(names, {"s", 2, "/scratch/d", "/dev/shm/m", "", 4321});
  std::optional<JobRecord> record = ReadLivenessRecord(lease.name());
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->master_pid, 4321);
  EXPECT_EQ(record->spill_dir, "/scratch/d");
  EXPECT_EQ(record->memory_dir, "/dev/shm/m");
  EXPECT_FALSE(ReadLivenessRecord(JobNames(UniqueJobId(), 1).Liveness(NewNameTag())).has_value());
}

TEST(JobLivenessTest, DeadOnceEveryHolderIsGone) {
  JobNames names(UniqueJobId(), 2);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A master killed without cleaning up: the lease is never released.
    new NodeLease(NodeLease::Claim(names, {"secret", 3, "/scratch/d", "", ""}));
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  std::vector<std::string> files = LivenessFiles(names);
  ASSERT_EQ(files.size(), 1u);
  std::optional<DeadNode> dead = LockIfDead(files[0], 0);
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->record.launch_secret, "secret");
  EXPECT_EQ(dead->record.nslaves, 3);
  EXPECT_EQ(dead->record.spill_dir, "/scratch/d");
  // A second collector waits for the first.
  EXPECT_FALSE(LockIfDead(files[0], 0).has_value());
  // While the dead one is there, its id stays in use.
  EXPECT_ERROR_WITH(NodeLease::Claim(names, {"t", 1, "/x", "", ""}), "is in use on this node");
  shm_unlink(files[0].c_str());
}

// Another local user who knows the job id (it is on the masters' command
// lines) creates objects with the node's names first: the job neither sees
// them as its own nor stops.
TEST(JobLivenessTest, AnotherUsersObjectsNeitherStopNorJoinTheJob) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to act as user nobody (65534) too";
  JobNames names(UniqueJobId(), 0);
  std::string squatted = names.Liveness(NewNameTag());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    int fd = shm_open(squatted.c_str(), O_RDWR | O_CREAT | O_EXCL, 0666);
    _exit(fd >= 0 ? 0 : 3);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  {
    NodeLease lease = NodeLease::Claim(names, {"s", 1, "/x", "", ""});
    EXPECT_EQ(LivenessFiles(names), std::vector<std::string>{lease.name()});
    EXPECT_FALSE(ReadLivenessRecord(squatted).has_value());
    EXPECT_FALSE(LockIfDead(squatted, 0).has_value());
  }
  EXPECT_EQ(shm_unlink(squatted.c_str()), 0);  // still there: not ours to remove
}

// Names shared between jobs of the user (common/rendezvous.h), in a
// rendezvous directory of the test's own (XDG_RUNTIME_DIR).
class RendezvousTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("XDG_RUNTIME_DIR");
    had_old_ = old != nullptr;
    if (had_old_) old_ = old;
    setenv("XDG_RUNTIME_DIR", runtime_.path().c_str(), 1);
  }
  void TearDown() override {
    if (had_old_) {
      setenv("XDG_RUNTIME_DIR", old_.c_str(), 1);
    } else {
      unsetenv("XDG_RUNTIME_DIR");
    }
  }
  bool DirExists() const { return fs::exists(RendezvousDir()); }

  ScopedTempDir runtime_;
  bool had_old_ = false;
  std::string old_;
};

TEST_F(RendezvousTest, NameSeenWhileItsJobLivesAndHeldByOneJob) {
  EXPECT_EQ(RendezvousDir(), runtime_.path() + "/bdmpi");
  NodeLease a = NodeLease::Claim(JobNames(UniqueJobId(), 0), {"a", 1, "/x", "", ""});
  NodeLease b = NodeLease::Claim(JobNames(UniqueJobId(), 0), {"b", 1, "/x", "", ""});
  EXPECT_FALSE(LookupBetweenJobs("svc").has_value());
  EXPECT_FALSE(DirExists());
  ASSERT_TRUE(PublishBetweenJobs("svc", "port-a", a.name(), nullptr));
  struct stat info {};
  ASSERT_EQ(stat(RendezvousDir().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  EXPECT_EQ(LookupBetweenJobs("svc"), std::optional<std::string>("port-a"));
  std::string holder;
  EXPECT_FALSE(PublishBetweenJobs("svc", "port-b", b.name(), &holder));
  EXPECT_EQ(holder, "port-a");
  UnpublishBetweenJobs("svc", b.name());  // not b's: stays
  EXPECT_EQ(LookupBetweenJobs("svc"), std::optional<std::string>("port-a"));
  UnpublishBetweenJobs("svc", a.name());
  EXPECT_FALSE(LookupBetweenJobs("svc").has_value());
  EXPECT_FALSE(DirExists());  // removed once it holds no name
}

TEST_F(RendezvousTest, ADeadJobsNameIsStaleReplacedAndCollected) {
  JobNames names(UniqueJobId(), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A master killed after publishing: its lease is never released.
    auto* lease = new NodeLease(NodeLease::Claim(names, {"d", 1, "/x", "", ""}));
    _exit(PublishBetweenJobs("svc", "port-dead", lease->name(), nullptr) &&
                  PublishBetweenJobs("other", "port-dead", lease->name(), nullptr)
              ? 0
              : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::vector<std::string> files = LivenessFiles(names);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_FALSE(LookupBetweenJobs("svc").has_value());  // its job is gone
  NodeLease live = NodeLease::Claim(JobNames(UniqueJobId(), 0), {"l", 1, "/x", "", ""});
  EXPECT_TRUE(PublishBetweenJobs("svc", "port-live", live.name(), nullptr));
  EXPECT_EQ(LookupBetweenJobs("svc"), std::optional<std::string>("port-live"));
  // The dead job's collector removes what is still its own.
  EXPECT_EQ(RemoveNamesOf(files[0]), 1);
  EXPECT_EQ(LookupBetweenJobs("svc"), std::optional<std::string>("port-live"));
  shm_unlink(files[0].c_str());
  {
    NodeLease gone = std::move(live);
  }  // a released lease takes its job's names along
  EXPECT_FALSE(LookupBetweenJobs("svc").has_value());
  EXPECT_FALSE(DirExists());
}

// A port is any string MPI_Publish_name takes: lines, and as long as
// MPI_MAX_PORT_NAME allows.
TEST_F(RendezvousTest, AnyPortComesBackAsPublished) {
  NodeLease a = NodeLease::Claim(JobNames(UniqueJobId(), 0), {"a", 1, "/x", "", ""});
  const std::string lines = "otherhost:122\nsecond line\n";
  ASSERT_TRUE(PublishBetweenJobs("lines", lines, a.name(), nullptr));
  EXPECT_EQ(LookupBetweenJobs("lines"), std::optional<std::string>(lines));
  const std::string longest(1023, 'p');
  ASSERT_TRUE(PublishBetweenJobs("long", longest, a.name(), nullptr));
  EXPECT_EQ(LookupBetweenJobs("long"), std::optional<std::string>(longest));
  UnpublishBetweenJobs("lines", a.name());
  UnpublishBetweenJobs("long", a.name());
  EXPECT_FALSE(DirExists());
}

TEST_F(RendezvousTest, RefusesLongNamesAndADirectoryNotPrivate) {
  NodeLease a = NodeLease::Claim(JobNames(UniqueJobId(), 0), {"a", 1, "/x", "", ""});
  EXPECT_ERROR_WITH(PublishBetweenJobs(std::string(kMaxSharedServiceName + 1, 's'), "p",
                                       a.name(), nullptr),
                    "bytes or fewer");
  ASSERT_EQ(mkdir(RendezvousDir().c_str(), 0755), 0);
  EXPECT_ERROR_WITH(PublishBetweenJobs("svc", "p", a.name(), nullptr), "bdmpi");
  EXPECT_THROW(LookupBetweenJobs("svc"), Error);
  rmdir(RendezvousDir().c_str());
}

}  // namespace
}  // namespace bdmpi
