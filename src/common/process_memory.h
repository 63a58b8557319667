// Memory figures of this process, from /proc/self/status, and of another
// one from /proc/<pid>/stat.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

namespace bdmpi {

// VmHWM (the peak resident set) in KiB, or -1 when unknown: of this
// process, or of process `pid`.
long PeakRssKiB();
long PeakRssKiB(pid_t pid);
// Sets process `pid`'s VmHWM back to its resident set now (clear_refs
// "5"), so that the next reading says the most it held from here on.
// False when it cannot.
bool ResetPeakRss(pid_t pid);

// Yama's ptrace_scope (who may read another process's memory: 0 classic,
// 1 descendants and declared tracers, 2 admin only, 3 nobody); 0 when Yama
// is not there.
int YamaPtraceScope();

// Copies `bytes` from `address` in process `pid` to `out`, or from `data`
// to `address` in `pid` (process_vm_readv / process_vm_writev, resumed
// after a partial copy or EINTR): the single copies of lent blocks and
// placed messages. Returns 0 or the errno of the failed call: EFAULT for a
// bad buffer on either side, EPERM or EACCES where the system forbids it,
// ESRCH when `pid` is gone.
int ReadProcessMemory(pid_t pid, std::uint64_t address, void* out, std::uint64_t bytes);
int WriteProcessMemory(pid_t pid, std::uint64_t address, const void* data, std::uint64_t bytes);
// Moves the bytes of `runs` (count of them) between `local` (contiguous)
// and process `pid`: into the runs when `to_runs`, else out of them. pid 0:
// the runs are in this process (memcpy); another's go IOV_MAX at a time in
// one system call. Returns 0, or the errno (EFAULT for a short copy).
int MoveRuns(pid_t pid, const iovec* runs, std::size_t count, std::byte* local, bool to_runs);

// /proc/<pid>/statm, read through a descriptor open on it: pages of the
// address space, resident pages, and resident pages that are file or
// shared memory (the rest of the resident pages are anonymous: RssAnon).
// The kernel keeps these as counters, so a reading costs a few
// microseconds whatever the process holds. False when it cannot be read.
struct Statm {
  std::uint64_t size = 0;
  std::uint64_t resident = 0;
  std::uint64_t shared = 0;
  std::uint64_t anonymous() const { return resident > shared ? resident - shared : 0; }
};
bool ReadStatm(int fd, Statm& out);

// The major page faults of process `pid` so far (pages it waited for the
// disk to read), or -1 when unknown (e.g. it is gone).
long MajorFaults(pid_t pid);

// The bytes process `pid` has had read from storage so far (/proc/<pid>/io
// read_bytes: what its faults, reads and read-ahead fetched from disk, page
// cache hits not counted), or -1 when unknown.
long long StorageReadBytes(pid_t pid);

}  // namespace bdmpi
