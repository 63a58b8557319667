#include "common/job_liveness.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "common/error.h"
#include "common/rendezvous.h"

namespace bdmpi {
namespace {

// The record's last line: a record without it is still being written.
constexpr const char* kRecordEnd = "end\n";

std::string EncodeRecord(const JobRecord& record) {
  return "secret " + record.launch_secret + "\nnslaves " + std::to_string(record.nslaves) +
         "\nspill " + record.spill_dir + "\nmemory " + record.memory_dir + "\nkey " +
         record.name_key + "\nmaster " + std::to_string(record.master_pid) + "\n" + kRecordEnd;
}

std::optional<JobRecord> ParseRecord(const std::string& text) {
  if (text.size() < 4 || text.compare(text.size() - 4, 4, kRecordEnd) != 0)
    return std::nullopt;
  JobRecord record;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    std::string key = line.substr(0, space), value = line.substr(space + 1);
    if (key == "secret") record.launch_secret = value;
    else if (key == "nslaves") record.nslaves = std::atoi(value.c_str());
    else if (key == "spill") record.spill_dir = value;
    else if (key == "memory") record.memory_dir = value;
    else if (key == "key") record.name_key = value;
    else if (key == "master") record.master_pid = std::atol(value.c_str());
  }
  if (record.launch_secret.empty() || record.nslaves <= 0) return std::nullopt;
  return record;
}

}  // namespace

NodeLease NodeLease::Claim(const JobNames& names, const JobRecord& record) {
  NodeLease lease;
  std::string name = names.Liveness(NewNameTag());
  // shm_open sets close-on-exec; cleared below so that slaves inherit it.
  lease.fd_ = UniqueFd(shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600));
  if (!lease.fd_.valid()) ThrowSystemError("shm_open " + name, errno);
  lease.name_ = name;
  if (flock(lease.fd_.get(), LOCK_SH) != 0) ThrowSystemError("flock " + name, errno);
  std::string text = EncodeRecord(record);
  if (pwrite(lease.fd_.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
    ThrowSystemError("write " + name, errno);
  for (const std::string& other : LivenessFiles(names)) {
    if (other != name)
      throw Error(kErrArg, "job id " + names.job_id() +
                               " is in use on this node by another job (/dev/shm" + other +
                               " exists); choose another --job-id");
  }
  int flags = fcntl(lease.fd_.get(), F_GETFD);
  fcntl(lease.fd_.get(), F_SETFD, flags & ~FD_CLOEXEC);
  return lease;
}

NodeLease& NodeLease::operator=(NodeLease&& other) noexcept {
  if (this != &other) {
    Release();
    name_ = std::move(other.name_);
    fd_ = std::move(other.fd_);
    other.name_.clear();
  }
  return *this;
}

NodeLease::~NodeLease() { Release(); }

void NodeLease::Release() noexcept {
  // The job's names in the user's rendezvous directory go with it.
  if (!name_.empty()) RemoveNamesOf(name_);
  if (!name_.empty()) shm_unlink(name_.c_str());
  name_.clear();
  fd_.reset();
}

std::vector<std::string> OwnEntries(const char* dir, const std::string& prefix) {
  std::vector<std::string> names;
  DIR* listing = opendir(dir);
  if (listing == nullptr) return names;
  while (dirent* entry = readdir(listing)) {
    std::string name = entry->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    struct stat info {};
    if (fstatat(dirfd(listing), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 &&
        info.st_uid == geteuid())
      names.push_back("/" + name);
  }
  closedir(listing);
  return names;
}

std::vector<std::string> LivenessFiles(const JobNames& names) {
  std::vector<std::string> files;
  const std::string prefix = names.Liveness("");
  for (std::string& name : OwnEntries("/dev/shm", prefix.substr(1)))
    if (JobNames::IsTagged(name, prefix)) files.push_back(std::move(name));
  return files;
}

namespace {

// The liveness file `name`, if it is a regular file of this user.
UniqueFd OpenOwnLivenessFile(const std::string& name, int flags) {
  UniqueFd fd(shm_open(name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, 0));
  struct stat info {};
  if (!fd.valid() || fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode) ||
      info.st_uid != geteuid())
    return UniqueFd();
  return fd;
}

std::optional<JobRecord> ReadRecord(int fd) {
  char text[4096];
  ssize_t n = pread(fd, text, sizeof text, 0);
  return ParseRecord(n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "");
}

}  // namespace

std::optional<JobRecord> ReadLivenessRecord(const std::string& name) {
  UniqueFd fd = OpenOwnLivenessFile(name, O_RDONLY);
  if (!fd.valid()) return std::nullopt;
  return ReadRecord(fd.get());
}

std::optional<DeadNode> LockIfDead(const std::string& name, int wait_ms) {
  UniqueFd fd = OpenOwnLivenessFile(name, O_RDWR);
  if (!fd.valid()) return std::nullopt;
  for (int waited = 0; flock(fd.get(), LOCK_EX | LOCK_NB) != 0; waited += 20) {
    if (errno != EWOULDBLOCK && errno != EINTR) return std::nullopt;
    if (waited >= wait_ms) return std::nullopt;
    timespec pause{0, 20'000'000};
    nanosleep(&pause, nullptr);
  }
  std::optional<JobRecord> record = ReadRecord(fd.get());
  if (!record) return std::nullopt;  // a master between creating and writing it
  return DeadNode{std::move(fd), std::move(*record)};
}

}  // namespace bdmpi
