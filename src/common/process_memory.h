// Memory figures of this process, from /proc/self/status, and of another
// one from /proc/<pid>/stat.
#pragma once

#include <sys/types.h>

namespace bdmpi {

// VmHWM (the peak resident set) in KiB, or -1 when unknown.
long PeakRssKiB();

// Yama's ptrace_scope (who may read another process's memory: 0 classic,
// 1 descendants and declared tracers, 2 admin only, 3 nobody); 0 when Yama
// is not there.
int YamaPtraceScope();

// The major page faults of process `pid` so far (pages it waited for the
// disk to read), or -1 when unknown (e.g. it is gone).
long MajorFaults(pid_t pid);

}  // namespace bdmpi
