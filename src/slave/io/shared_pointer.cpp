#include "slave/io/shared_pointer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "common/file_io.h"
#include "slave/io/file.h"
#include "slave/runtime/runtime.h"

namespace bdmpi::io {

namespace {

// Holds an exclusive fcntl lock (open file description lock: private to
// this descriptor, released with it) on the whole lock file.
class FileLock {
 public:
  FileLock(int fd, const std::string& path) : fd_(fd) {
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    while (fcntl(fd_, F_OFD_SETLKW, &lock) != 0) {
      if (errno != EINTR) ThrowFileError("fcntl(F_OFD_SETLKW) of", path, errno);
    }
  }
  ~FileLock() {
    struct flock lock {};
    lock.l_type = F_UNLCK;
    lock.l_whence = SEEK_SET;
    fcntl(fd_, F_OFD_SETLK, &lock);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace

int SharedPointer::Fd() {
  if (!fd_.valid()) {
    fd_.reset(open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!fd_.valid())
      ThrowFileError("creating the shared file pointer's lock file", path_, errno);
    // Rank 0 removes it at MPI_File_close; the master, should no rank live
    // to close the file.
    if (Runtime* runtime = Runtime::Instance()) runtime->spill_dir().RecordJobFile(path_);
  }
  return fd_.get();
}

std::uint64_t SharedPointer::FetchAdd(std::uint64_t advance) {
  int fd = Fd();
  FileLock lock(fd, path_);
  std::uint64_t value = initial_;
  ssize_t n = PreadFull(fd, &value, sizeof value, 0);
  if (n < 0) ThrowFileError("reading the shared file pointer from", path_, errno);
  if (n != static_cast<ssize_t>(sizeof value)) value = initial_;  // not yet written
  if (advance > 0 || n != static_cast<ssize_t>(sizeof value)) {
    std::uint64_t next = value + advance;
    if (PwriteFull(fd, &next, sizeof next, 0) < 0)
      ThrowFileError("writing the shared file pointer to", path_, errno);
  }
  return value;
}

void SharedPointer::Set(std::uint64_t value) {
  int fd = Fd();
  FileLock lock(fd, path_);
  if (PwriteFull(fd, &value, sizeof value, 0) < 0)
    ThrowFileError("writing the shared file pointer to", path_, errno);
}

void SharedPointer::Remove() {
  if (!path_.empty()) unlink(path_.c_str());
}

}  // namespace bdmpi::io
