#include "common/process_memory.h"

#include <cstdio>

namespace bdmpi {

long PeakRssKiB() {
  FILE* file = std::fopen("/proc/self/status", "r");
  if (file == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, file) != nullptr) {
    if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
  }
  std::fclose(file);
  return kib;
}

}  // namespace bdmpi
