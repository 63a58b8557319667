// RAII POSIX shared-memory mapping. The creator unlinks the name when it goes
// away; names are created exclusively with mode 0600.
#pragma once

#include <cstddef>
#include <string>

namespace bdmpi {

class SharedMemory {
 public:
  SharedMemory() = default;
  static SharedMemory Create(const std::string& name, std::size_t size);
  static SharedMemory Open(const std::string& name, std::size_t size);

  SharedMemory(SharedMemory&& other) noexcept;
  SharedMemory& operator=(SharedMemory&& other) noexcept;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  ~SharedMemory();

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& name() const { return name_; }

 private:
  static SharedMemory Map(const std::string& name, std::size_t size, int fd,
                          bool owner);
  void Reset() noexcept;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::string name_;
  bool owner_ = false;
};

}  // namespace bdmpi
