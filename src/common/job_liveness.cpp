#include "common/job_liveness.h"

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

namespace bdmpi {
namespace {

// The record's last line: a record without it is still being written.
constexpr const char* kRecordEnd = "end\n";

std::string EncodeRecord(const JobRecord& record) {
  return "secret " + record.launch_secret + "\nnslaves " + std::to_string(record.nslaves) +
         "\nscratch " + record.scratch_dir + "\nmaster " + std::to_string(record.master_pid) +
         "\n" + kRecordEnd;
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
    else if (key == "scratch") record.scratch_dir = value;
    else if (key == "master") record.master_pid = std::atol(value.c_str());
  }
  if (record.launch_secret.empty() || record.nslaves <= 0) return std::nullopt;
  return record;
}

}  // namespace

NodeLease NodeLease::Claim(const JobNames& names, const JobRecord& record) {
  NodeLease lease;
  std::string name = names.Liveness();
  // shm_open sets close-on-exec; cleared below so that slaves inherit it.
  lease.fd_ = UniqueFd(shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600));
  if (!lease.fd_.valid()) {
    if (errno == EEXIST)
      throw Error(kErrArg, "job id " + names.job_id() +
                               " is in use on this node by another job (" + name +
                               " exists); choose another --job-id");
    ThrowSystemError("shm_open " + name, errno);
  }
  lease.name_ = name;
  if (flock(lease.fd_.get(), LOCK_SH) != 0) ThrowSystemError("flock " + name, errno);
  std::string text = EncodeRecord(record);
  if (pwrite(lease.fd_.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
    ThrowSystemError("write " + name, errno);
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
  if (!name_.empty()) shm_unlink(name_.c_str());
  name_.clear();
  fd_.reset();
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
