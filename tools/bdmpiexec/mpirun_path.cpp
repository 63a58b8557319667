#include "bdmpiexec/mpirun_path.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <sstream>
#include <vector>

namespace bdmpi {
namespace {

std::string RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? resolved : "";
}

}  // namespace

std::string OpenMpiMpirun() {
  if (const char* chosen = std::getenv("BDMPI_MPIRUN")) return chosen;
  std::vector<std::string> candidates = {BDMPI_OPEN_MPI_MPIRUN};
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty()) candidates.push_back(dir + "/mpirun");
  }
  const std::string self = RealPath("/proc/self/exe");
  for (const std::string& candidate : candidates) {
    if (access(candidate.c_str(), X_OK) != 0) continue;
    if (RealPath(candidate) != self) return candidate;
  }
  return "mpirun";  // not found: exec names it in its error
}

}  // namespace bdmpi
