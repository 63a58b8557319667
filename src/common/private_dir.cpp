#include "common/private_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"

namespace bdmpi {
namespace {

constexpr const char* kAdvice = "; remove it, or choose another --scratch-dir";

[[noreturn]] void Refuse(const std::string& path, const std::string& why) {
  throw Error(kErrIo, "refusing to use " + path + ": " + why + kAdvice);
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

UniqueFd CreatePrivateDir(const std::string& path) {
  std::size_t slash = path.rfind('/');
  std::string parent = slash == std::string::npos ? "." : path.substr(0, slash + (slash == 0));
  UniqueFd parent_fd(open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent_fd.valid())
    ThrowSystemError("open " + parent + " (set the scratch directory with --scratch-dir)", errno);
  return CreatePrivateDirAt(parent_fd.get(), path.substr(slash + 1), path);
}

bool IsPrivateDir(const std::string& path) noexcept {
  try {
    OpenPrivateDir(path);
    return true;
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

}  // namespace bdmpi
