// What the master keeps for each of its slaves.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "common/file_io.h"
#include "common/protocol.h"
#include "master/memory/touch_estimate.h"

namespace bdmpi {

// The paper's states, plus the two ends of a slave's life.
enum class SlaveState {
  kStarting,   // forked, has not called MPI_Init yet (runs unscheduled)
  kRunnable,   // may run when a slot frees
  kRunning,    // holds one of the nrunning slots
  kRBlocked,   // waiting for a point-to-point message
  kCBlocked,   // inside a collective that has not completed
  kFinalized,  // finalized its last session or the world model; runs
               // unscheduled until it exits or starts a session (kInit)
  kExited,     // reaped
};

const char* SlaveStateName(SlaveState state);

struct Slave {
  int index = 0;       // on this node
  int world_rank = 0;
  pid_t pid = -1;
  // Its secret (BDMPI_SLAVE_TOKEN): a request is this slave's only when it
  // carries it (master/request_check.cpp).
  std::uint32_t token = 0;
  SlaveState state = SlaveState::kStarting;
  bool initialized = false;
  // Started by an MPI_Comm_spawn that failed midway and killed again: its
  // end is no failure of the job.
  bool discarded = false;
  // Its rank in its MPI_COMM_WORLD when MPI_Comm_spawn started it (the
  // failure message names it); -1: one of the ranks the job started with.
  int spawned_rank = -1;
  // A slot reserved for spawns that has never held a process.
  bool SpareSlot() const { return state == SlaveState::kExited && pid <= 0; }
  UniqueFd statm_fd;      // /proc/<pid>/statm, for the memory policy
  int core = -1;          // core it is bound to while running (-nr > 1)
  int bound_core = -1;    // core its affinity names, kept while it waits
  std::int64_t runnable_since_ns = -1;  // CLOCK_MONOTONIC, while runnable
  // Last reading of the resident fraction and when it was taken: reading
  // statm costs microseconds, and residency changes on the scale of page
  // I/O, not of a slave switch.
  double resident_fraction = 0;
  std::int64_t resident_read_ns = -1;
  // Storage-backed memory (master/memory/memory.cpp): written back and dropped
  // since it last ran; asked to do so and not done yet; holds a running
  // slot but waits for others' memory before its reply is sent.
  bool storage_released = false;
  bool storage_releasing = false;
  bool waiting_for_memory = false;
  bool storage_read_ahead = false;  // told to read back before it runs
  // Resumed after a switch-out and reading its memory back (until its next
  // request): the read-back maps fresh memory over its blocks and reads
  // the file into it, so nothing may write into its memory meanwhile.
  bool reading_back = false;
  // Of a releasing slave: bytes written back and dropped so far
  // (ReleaseProgress); only the rest counts as resident.
  std::uint64_t storage_dropped = 0;
  // Most storage-backed bytes seen when it stopped running: what it is
  // expected to need when it runs again (it may allocate after resuming).
  std::uint64_t storage_peak = 0;
  // When it last stopped running (CLOCK_MONOTONIC; -1: never): of waiting
  // ranks alike, the one that ran last is switched out first (switch_policy.h).
  std::int64_t stopped_ns = -1;
  // Resumed since its switch-out with its data read back lazily
  // (touch_estimate.h): only what it touched counts resident. `touched`:
  // what it added to its memory since `touch_baseline` (its reading at
  // that resume) when last measured; `touch_counted`: what the budget counts for it (while
  // it runs, what it was admitted on); `touch_point`: the request type it
  // was last resumed out of; `touch_estimates`: by that point, what its
  // resumes touched; `touch_peak_reset`: its VmHWM was set back at that
  // resume (what it held at most since then can be read).
  bool storage_partial = false;
  bool touch_peak_reset = false;
  std::uint64_t touched = 0;
  std::uint64_t touch_counted = 0;
  TouchReading touch_baseline;
  int touch_point = 0;
  // When it last resumed (CLOCK_MONOTONIC), and how many more of its tests
  // that find nothing may keep its turn (a send since: sched/sending_turn.cpp).
  std::int64_t resumed_ns = -1;
  int tests_after_send = 0;
  TouchEstimates touch_estimates;
  // What of its memory the runtime cannot page out (master/memory/memory.cpp):
  // its resident anonymous memory (statm, read with resident_fraction)
  // less the storage-backed bytes counted resident for it. Stays resident
  // when it is switched out, so it counts against the budget while it
  // lives. `unpageable_exact`: the last reading taken with none of its
  // storage-backed data counted resident (where the difference is exact).
  std::uint64_t unpageable = 0;
  std::uint64_t unpageable_exact = 0;
  // Its memory may have changed since the last reading (it ran, or wrote
  // back): read again at the next decision.
  bool memory_changed = true;
  // The request whose reply is due when this slave next runs.
  std::optional<RequestMsg> pending;
  // The one-sided call in which it waits on a window's communicator
  // (RmaWaitIn), for the deadlock report (blocked_call.cpp).
  RmaWaitArgs rma_wait;
  // Files handed to the slave in its last reply; released at its next
  // request, which proves it has read them.
  std::vector<std::shared_ptr<OwnedFile>> held_files;
};

}  // namespace bdmpi
