#include "common/private_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"

namespace bdmpi {
namespace {

// In the job directory: the launch secret of the job that created it.
constexpr const char* kSecretFile = "launch";
constexpr const char* kAdvice =
    "; remove it, or choose another --scratch-dir or --job-id";

[[noreturn]] void Refuse(const std::string& path, const std::string& why) {
  throw Error(kErrIo, "refusing to use " + path + ": " + why + kAdvice);
}

// The secret in the job directory, "" while its creator has not written it.
std::string ReadSecret(int dir_fd, const std::string& path) {
  UniqueFd fd(openat(dir_fd, kSecretFile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return "";
    Refuse(path, std::string("cannot open its launch file: ") + std::strerror(errno));
  }
  struct stat info {};
  if (fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != geteuid())
    Refuse(path, "its launch file is not a file of this user");
  char text[128];
  ssize_t n = pread(fd.get(), text, sizeof text, 0);
  return n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "";
}

void WriteSecret(int dir_fd, const std::string& path, const std::string& secret) {
  UniqueFd fd(openat(dir_fd, kSecretFile,
                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) ThrowSystemError("create " + path + "/" + kSecretFile, errno);
  if (write(fd.get(), secret.data(), secret.size()) != static_cast<ssize_t>(secret.size()))
    ThrowSystemError("write " + path + "/" + kSecretFile, errno);
}

}  // namespace

void CheckPrivateDir(int fd, const std::string& path) {
  struct stat info {};
  if (fstat(fd, &info) != 0) ThrowSystemError("fstat " + path, errno);
  if (!S_ISDIR(info.st_mode)) Refuse(path, "it is not a directory");
  if (info.st_uid != geteuid())
    Refuse(path, "it belongs to another user (uid " + std::to_string(info.st_uid) +
                     "), who could read or change the job's data");
  if ((info.st_mode & 07777) != 0700) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", info.st_mode & 07777);
    Refuse(path, std::string("its mode is ") + mode + ", not 0700");
  }
}

UniqueFd OpenPrivateDir(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ELOOP || errno == ENOTDIR) Refuse(path, "it is a symlink or not a directory");
    ThrowSystemError("open " + path, errno);
  }
  CheckPrivateDir(fd.get(), path);
  return fd;
}

UniqueFd CreateOrJoinJobDir(const std::string& path, const std::string& launch_secret) {
  if (mkdir(path.c_str(), 0700) == 0) {
    UniqueFd fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) ThrowSystemError("open " + path, errno);
    fchmod(fd.get(), 0700);  // whatever the umask
    CheckPrivateDir(fd.get(), path);
    WriteSecret(fd.get(), path, launch_secret);
    return fd;
  }
  if (errno != EEXIST)
    ThrowSystemError("mkdir " + path + " (set the scratch directory with --scratch-dir)",
                     errno);
  UniqueFd fd = OpenPrivateDir(path);
  // A sibling master that created it may not have written the secret yet.
  for (int tries = 0; tries < 200; ++tries) {
    std::string secret = ReadSecret(fd.get(), path);
    if (secret == launch_secret) return fd;
    if (!secret.empty()) break;
    timespec pause{0, 10'000'000};
    nanosleep(&pause, nullptr);
  }
  Refuse(path, "it exists and belongs to another job (another run with the same --job-id?)");
}

bool IsJobDirOf(const std::string& path, const std::string& launch_secret) noexcept {
  try {
    UniqueFd fd = OpenPrivateDir(path);
    return ReadSecret(fd.get(), path) == launch_secret;
  } catch (const Error&) {
    return false;
  }
}

UniqueFd CreatePrivateDirAt(int parent_fd, const std::string& name, const std::string& path) {
  if (mkdirat(parent_fd, name.c_str(), 0700) != 0) ThrowSystemError("mkdir " + path, errno);
  UniqueFd fd(openat(parent_fd, name.c_str(),
                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) ThrowSystemError("open " + path, errno);
  fchmod(fd.get(), 0700);  // whatever the umask
  CheckPrivateDir(fd.get(), path);
  return fd;
}

std::uint64_t InodeOf(int fd) {
  struct stat info {};
  if (fstat(fd, &info) != 0) ThrowSystemError("fstat", errno);
  return static_cast<std::uint64_t>(info.st_ino);
}

void RemoveJobDirIfEmpty(const std::string& path) noexcept {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat info {};
  if (!fd.valid() || fstat(fd.get(), &info) != 0 || info.st_uid != geteuid()) return;
  // The secret goes only when no spill directory is left beside it: a
  // sibling master still running keeps its own.
  DIR* dir = fdopendir(dup(fd.get()));
  if (dir == nullptr) return;
  bool only_secret = true;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != ".." && name != kSecretFile) only_secret = false;
  }
  closedir(dir);
  if (!only_secret) return;
  unlinkat(fd.get(), kSecretFile, 0);
  rmdir(path.c_str());
}

}  // namespace bdmpi
