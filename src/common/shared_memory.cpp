#include "common/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"

namespace bdmpi {

SharedMemory SharedMemory::Create(const std::string& name, std::size_t size) {
  UniqueFd fd(shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd) ThrowSystemError("shm_open " + name, errno);
  if (ftruncate(fd.get(), static_cast<off_t>(size)) != 0) {
    int err = errno;
    shm_unlink(name.c_str());
    ThrowSystemError("ftruncate " + name, err);
  }
  return Map(name, size, fd.get(), /*owner=*/true);
}

SharedMemory SharedMemory::Open(const std::string& name, std::size_t size) {
  UniqueFd fd(shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0));
  if (!fd) ThrowSystemError("shm_open " + name, errno);
  return Map(name, size, fd.get(), /*owner=*/false);
}

SharedMemory SharedMemory::Map(const std::string& name, std::size_t size,
                               int fd, bool owner) {
  // The caller closes `fd` afterwards: the mapping keeps the object alive.
  void* data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  if (data == MAP_FAILED) {
    if (owner) shm_unlink(name.c_str());
    ThrowSystemError("mmap " + name, err);
  }
  SharedMemory shm;
  shm.data_ = static_cast<std::byte*>(data);
  shm.size_ = size;
  shm.name_ = name;
  shm.owner_ = owner;
  return shm;
}

SharedMemory::SharedMemory(SharedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      name_(std::move(other.name_)),
      owner_(std::exchange(other.owner_, false)) {}

SharedMemory& SharedMemory::operator=(SharedMemory&& other) noexcept {
  if (this != &other) {
    Reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    name_ = std::move(other.name_);
    owner_ = std::exchange(other.owner_, false);
  }
  return *this;
}

SharedMemory::~SharedMemory() { Reset(); }

void SharedMemory::Reset() noexcept {
  if (data_ != nullptr) munmap(data_, size_);
  if (owner_) shm_unlink(name_.c_str());
  data_ = nullptr;
  owner_ = false;
}

}  // namespace bdmpi
