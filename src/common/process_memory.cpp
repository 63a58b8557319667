#include "common/process_memory.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

namespace bdmpi {

long PeakRssKiB() { return PeakRssKiB(0); }

long PeakRssKiB(pid_t pid) {
  char path[40];
  if (pid == 0) {
    std::snprintf(path, sizeof path, "/proc/self/status");
  } else {
    std::snprintf(path, sizeof path, "/proc/%d/status", static_cast<int>(pid));
  }
  FILE* file = std::fopen(path, "re");
  if (file == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, file) != nullptr) {
    if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
  }
  std::fclose(file);
  return kib;
}

bool ResetPeakRss(pid_t pid) {
  char path[40];
  std::snprintf(path, sizeof path, "/proc/%d/clear_refs", static_cast<int>(pid));
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n;
  while ((n = write(fd, "5", 1)) < 0 && errno == EINTR) {
  }
  close(fd);
  return n == 1;
}

bool ReadStatm(int fd, Statm& out) {
  char text[160];
  ssize_t n;
  while ((n = pread(fd, text, sizeof text - 1, 0)) < 0 && errno == EINTR) {
  }
  if (n <= 0) return false;
  text[n] = '\0';
  unsigned long long size = 0, resident = 0, shared = 0;
  if (std::sscanf(text, "%llu %llu %llu", &size, &resident, &shared) != 3) return false;
  out = {size, resident, shared};
  return true;
}

long MajorFaults(pid_t pid) {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* file = std::fopen(path, "r");
  if (file == nullptr) return -1;
  char text[1024];
  std::size_t n = std::fread(text, 1, sizeof text - 1, file);
  std::fclose(file);
  text[n] = '\0';
  // After "pid (comm) ": state ppid pgrp session tty_nr tpgid flags minflt
  // cminflt majflt; comm may hold spaces and parentheses, hence the last ')'.
  const char* after = std::strrchr(text, ')');
  long majflt = -1;
  if (after == nullptr ||
      std::sscanf(after + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %ld", &majflt) != 1)
    return -1;
  return majflt;
}

long long StorageReadBytes(pid_t pid) {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/io", static_cast<int>(pid));
  FILE* file = std::fopen(path, "r");
  if (file == nullptr) return -1;
  char line[128];
  long long bytes = -1;
  while (std::fgets(line, sizeof line, file) != nullptr)
    if (std::sscanf(line, "read_bytes: %lld", &bytes) == 1) break;
  std::fclose(file);
  return bytes;
}

int YamaPtraceScope() {
  std::FILE* file = std::fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
  if (file == nullptr) return 0;
  int scope = 0;
  if (std::fscanf(file, "%d", &scope) != 1) scope = 0;
  std::fclose(file);
  return scope;
}

namespace {

using VmCopy = ssize_t (*)(pid_t, const iovec*, unsigned long, const iovec*, unsigned long,
                           unsigned long);

int CopyWithProcess(VmCopy copy, pid_t pid, std::uint64_t address, char* local_bytes,
                    std::uint64_t bytes) {
  std::uint64_t done = 0;
  while (done < bytes) {
    iovec local{local_bytes + done, bytes - done};
    iovec remote{reinterpret_cast<void*>(address + done), bytes - done};
    ssize_t copied = copy(pid, &local, 1, &remote, 1, 0);
    if (copied > 0) {
      done += static_cast<std::uint64_t>(copied);
    } else if (copied < 0 && errno == EINTR) {
      continue;
    } else {
      return copied < 0 ? errno : EFAULT;
    }
  }
  return 0;
}

}  // namespace

int ReadProcessMemory(pid_t pid, std::uint64_t address, void* out, std::uint64_t bytes) {
  return CopyWithProcess(process_vm_readv, pid, address, static_cast<char*>(out), bytes);
}

int WriteProcessMemory(pid_t pid, std::uint64_t address, const void* data,
                       std::uint64_t bytes) {
  return CopyWithProcess(process_vm_writev, pid, address,
                         const_cast<char*>(static_cast<const char*>(data)), bytes);
}

int MoveRuns(pid_t pid, const iovec* runs, std::size_t count, std::byte* local, bool to_runs) {
  if (pid == 0) {
    for (std::size_t i = 0; i < count; ++i) {
      if (to_runs) std::memcpy(runs[i].iov_base, local, runs[i].iov_len);
      else std::memcpy(local, runs[i].iov_base, runs[i].iov_len);
      local += runs[i].iov_len;
    }
    return 0;
  }
  auto copy = to_runs ? process_vm_writev : process_vm_readv;
  for (std::size_t first = 0; first < count; first += IOV_MAX) {
    std::size_t n = std::min<std::size_t>(IOV_MAX, count - first);
    std::uint64_t bytes = 0;
    for (std::size_t i = first; i < first + n; ++i) bytes += runs[i].iov_len;
    iovec mine{local, bytes};
    ssize_t moved = copy(pid, &mine, 1, &runs[first], n, 0);
    if (moved < 0) return errno;
    if (static_cast<std::uint64_t>(moved) != bytes) return EFAULT;
    local += bytes;
  }
  return 0;
}

}  // namespace bdmpi
