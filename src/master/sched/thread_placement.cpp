#include "master/sched/thread_placement.h"

namespace bdmpi {

ThreadPlacement ThreadPlacement::OfCallingThread() {
  ThreadPlacement placement;
  CPU_ZERO(&placement.cpus_);
  placement.have_cpus_ = sched_getaffinity(0, sizeof placement.cpus_, &placement.cpus_) == 0;
  return placement;
}

bool ThreadPlacement::ApplyToCallingThread() const {
  // On Linux, pid 0 names the calling thread, not the whole process.
  bool placed = !have_cpus_ || sched_setaffinity(0, sizeof cpus_, &cpus_) == 0;
  sched_param param{};
  return sched_setscheduler(0, SCHED_OTHER, &param) == 0 && placed;
}

}  // namespace bdmpi
