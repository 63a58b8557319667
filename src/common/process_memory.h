// Memory figures of this process, from /proc/self/status, and of another
// one from /proc/<pid>/stat.
#pragma once

#include <sys/types.h>

namespace bdmpi {

// VmHWM (the peak resident set) in KiB, or -1 when unknown.
long PeakRssKiB();

// The major page faults of process `pid` so far (pages it waited for the
// disk to read), or -1 when unknown (e.g. it is gone).
long MajorFaults(pid_t pid);

}  // namespace bdmpi
