// Names published between jobs; see rendezvous.h.
#include "common/rendezvous.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <random>
#include <vector>

#include "common/error.h"
#include "common/private_dir.h"
#include "common/unique_fd.h"

namespace bdmpi {
namespace {

constexpr const char* kEntryPrefix = "name-";

std::string EntryName(const std::string& service) {
  static const char kHex[] = "0123456789abcdef";
  std::string name = kEntryPrefix;
  for (unsigned char c : service) {
    name += kHex[c >> 4];
    name += kHex[c & 15];
  }
  return name;
}

// An entry's port and its job's liveness file.
struct NameEntry {
  std::string port;
  std::string liveness;
};

std::optional<NameEntry> ReadEntry(int dir_fd, const std::string& name) {
  UniqueFd fd(openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat info {};
  if (!fd.valid() || fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode) ||
      info.st_uid != geteuid())
    return std::nullopt;
  // A port (MPI_MAX_PORT_NAME) and a liveness file's name, each a line;
  // the port may hold newlines, the liveness file's name does not.
  char text[2048];
  ssize_t n = pread(fd.get(), text, sizeof text, 0);
  if (n <= 1) return std::nullopt;
  std::string content(text, static_cast<std::size_t>(n));
  if (content.back() != '\n') return std::nullopt;
  std::size_t last = content.rfind('\n', content.size() - 2);
  if (last == std::string::npos) return std::nullopt;
  return NameEntry{content.substr(0, last), content.substr(last + 1, content.size() - last - 2)};
}

// Whether a process of the job whose liveness file is `liveness` still
// lives: the file is this user's and its lock is held (job_liveness.h).
bool JobAlive(const std::string& liveness) {
  if (liveness.empty() || liveness[0] != '/') return false;
  UniqueFd fd(shm_open(liveness.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0));
  struct stat info {};
  if (!fd.valid() || fstat(fd.get(), &info) != 0 || info.st_uid != geteuid()) return false;
  while (flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
    if (errno != EINTR) return errno == EWOULDBLOCK;
  return false;  // the lock was free: every process of the job is gone
}

// The rendezvous directory, open and checked; made when `create`. Invalid
// when it does not exist and `create` is false.
UniqueFd OpenDir(bool create) {
  const std::string path = RendezvousDir();
  if (create && mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    ThrowSystemError("cannot make the rendezvous directory " + path +
                         " (names published between jobs)",
                     errno);
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT && !create) return fd;
    ThrowSystemError("cannot open the rendezvous directory " + path, errno);
  }
  CheckPrivateDir(fd.get(), path);
  return fd;
}

// The directory locked for a change; invalid when it does not exist and
// `create` is false. A directory removed between its open and the lock (by
// a job that took its last name away) is made again.
UniqueFd LockDir(bool create) {
  for (;;) {
    UniqueFd fd = OpenDir(create);
    if (!fd.valid()) return fd;
    while (flock(fd.get(), LOCK_EX) != 0)
      if (errno != EINTR) ThrowSystemError("cannot lock the rendezvous directory", errno);
    struct stat info {};
    if (fstat(fd.get(), &info) == 0 && info.st_nlink > 0) return fd;
    if (!create) return UniqueFd();
  }
}

// Removes the directory when it holds no name (called with it locked).
void RemoveDirIfEmpty() noexcept { rmdir(RendezvousDir().c_str()); }

std::vector<std::string> EntryNames(int dir_fd) {
  std::vector<std::string> names;
  int copy = dup(dir_fd);
  if (copy < 0) return names;
  DIR* listing = fdopendir(copy);
  if (listing == nullptr) {
    close(copy);
    return names;
  }
  rewinddir(listing);
  while (dirent* entry = readdir(listing)) {
    std::string name = entry->d_name;
    if (name.rfind(kEntryPrefix, 0) == 0) names.push_back(name);
  }
  closedir(listing);
  return names;
}

}  // namespace

std::string RendezvousDir() {
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR")) {
    struct stat info {};
    if (runtime[0] == '/' && lstat(runtime, &info) == 0 && S_ISDIR(info.st_mode) &&
        info.st_uid == geteuid())
      return std::string(runtime) + "/bdmpi";
  }
  return "/dev/shm/bdmpi.names-" + std::to_string(geteuid());
}

bool PublishBetweenJobs(const std::string& service, const std::string& port,
                        const std::string& liveness, std::string* holder) {
  if (service.size() > kMaxSharedServiceName)
    throw Error(kErrName, "MPI_Publish_name: the service name has " +
                              std::to_string(service.size()) + " bytes; BDMPI shares names of " +
                              std::to_string(kMaxSharedServiceName) +
                              " bytes or fewer with the user's other jobs");
  UniqueFd dir = LockDir(true);
  const std::string name = EntryName(service);
  if (std::optional<NameEntry> held = ReadEntry(dir.get(), name);
      held && held->liveness != liveness && JobAlive(held->liveness)) {
    if (holder != nullptr) *holder = held->port;
    return false;
  }
  std::random_device random;
  const std::string aside = "new-" + std::to_string(getpid()) + "-" + std::to_string(random());
  const std::string content = port + "\n" + liveness + "\n";
  {
    UniqueFd file(openat(dir.get(), aside.c_str(),
                         O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file.valid()) ThrowSystemError("cannot write a name into " + RendezvousDir(), errno);
    if (write(file.get(), content.data(), content.size()) !=
        static_cast<ssize_t>(content.size())) {
      int error = errno;
      unlinkat(dir.get(), aside.c_str(), 0);
      ThrowSystemError("cannot write a name into " + RendezvousDir(), error ? error : ENOSPC);
    }
  }
  if (renameat(dir.get(), aside.c_str(), dir.get(), name.c_str()) != 0) {
    int error = errno;
    unlinkat(dir.get(), aside.c_str(), 0);
    ThrowSystemError("cannot publish a name in " + RendezvousDir(), error);
  }
  return true;
}

void UnpublishBetweenJobs(const std::string& service, const std::string& liveness) noexcept {
  try {
    UniqueFd dir = LockDir(false);
    if (!dir.valid()) return;
    const std::string name = EntryName(service);
    std::optional<NameEntry> held = ReadEntry(dir.get(), name);
    if (held && held->liveness == liveness) unlinkat(dir.get(), name.c_str(), 0);
    RemoveDirIfEmpty();
  } catch (const std::exception&) {
  }
}

std::optional<std::string> LookupBetweenJobs(const std::string& service) {
  if (service.size() > kMaxSharedServiceName) return std::nullopt;
  UniqueFd dir = OpenDir(false);
  if (!dir.valid()) return std::nullopt;
  std::optional<NameEntry> held = ReadEntry(dir.get(), EntryName(service));
  if (!held || !JobAlive(held->liveness)) return std::nullopt;
  return held->port;
}

int RemoveNamesOf(const std::string& liveness) noexcept {
  int removed = 0;
  try {
    UniqueFd dir = LockDir(false);
    if (!dir.valid()) return 0;
    for (const std::string& name : EntryNames(dir.get())) {
      std::optional<NameEntry> held = ReadEntry(dir.get(), name);
      if (held && held->liveness == liveness && unlinkat(dir.get(), name.c_str(), 0) == 0)
        ++removed;
    }
    RemoveDirIfEmpty();
  } catch (const std::exception&) {
  }
  return removed;
}

}  // namespace bdmpi
