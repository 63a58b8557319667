// Memory figures of this process, from /proc/self/status.
#pragma once

namespace bdmpi {

// VmHWM (the peak resident set) in KiB, or -1 when unknown.
long PeakRssKiB();

}  // namespace bdmpi
