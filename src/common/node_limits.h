// What one node's part of a job needs from its host, against the host's
// limits, so that a job too large for a node is refused before anything
// starts, naming each limit and what to change, instead of failing midway
// (mmap ENOMEM, EMFILE, EAGAIN from fork) after thousands of processes and
// objects exist. bdmpiexec checks the masters it starts on this host; each
// master checks itself before it creates anything (on any host).
//
// What a master with n ranks holds: per rank one window of the page-
// rounded --mem-threshold in /dev/shm, mapped by the master (one mapping
// each), one go-queue (a descriptor, and message-queue bytes charged to the
// user), a pidfd and a /proc statm descriptor, and the rank's process; per
// node one request queue. A master raises its soft limits on open files,
// message-queue bytes and processes to the hard ones (RaiseSoftLimits), so
// those are checked against the hard limits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bdmpi {

struct NodeLimits {
  std::uint64_t shm_bytes = 0;   // /dev/shm's size; 0: unknown
  long max_map_count = -1;       // /proc/sys/vm/max_map_count; -1: unknown
  long open_files = -1;          // RLIMIT_NOFILE (hard); -1: unlimited
  long processes = -1;           // RLIMIT_NPROC (hard; -1: unlimited or root)
  long pid_max = -1;             // the lower of kernel.pid_max and threads-max
  std::uint64_t mq_bytes = 0;    // RLIMIT_MSGQUEUE (hard); 0: unlimited
  long queues_max = -1;          // fs.mqueue.queues_max; -1: does not apply (root)
  long msg_max = 10;             // fs.mqueue.msg_max (caps the request queue)

  static NodeLimits OfThisHost();
};

// The part of a job on one host: ranks of the largest master (limits per
// process) and of all its masters there (limits per host and user).
struct HostShare {
  long ranks_per_master = 1;
  long masters = 1;
  long ranks = 1;  // on the host in all
};

// "" when `share` with windows of `window` bytes fits `limits`; else one
// line per limit it exceeds (indented), each naming the limit, the need
// and what to change.
std::string NodeLimitProblems(const HostShare& share, std::size_t window,
                              const NodeLimits& limits);

// Raises this process's soft limits on open files, message-queue bytes and
// processes to the hard limits (inherited by its children).
void RaiseSoftLimits();

}  // namespace bdmpi
