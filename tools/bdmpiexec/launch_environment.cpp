#include "bdmpiexec/launch_environment.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "common/error.h"
#include "common/launch_guard.h"

namespace bdmpi {

void RefuseNestedLaunch() {
  const char* launch = std::getenv(kEnvInLaunch);
  if (launch == nullptr) return;
  throw Error(kErrArg,
              std::string("bdmpiexec: started inside the launch of another bdmpiexec (pid ") +
                  launch + ", " + kEnvInLaunch + " is set), by its bdmprun, mpirun, orted or "
                  "srun; it refuses, since it would start that launch again and again. "
                  "BDMPI_BDMPRUN and BDMPI_MPIRUN must name bdmprun and Open MPI's mpirun, "
                  "not bdmpiexec or a program that runs it (if you set " + kEnvInLaunch +
                  " yourself, unset it)");
}

void PrepareLaunchEnvironment() {
  unsetenv(kEnvSingletonStart);
  if (const char* preload = std::getenv("LD_PRELOAD")) {
    setenv(kEnvRanksPreload, preload, 1);
    unsetenv("LD_PRELOAD");
  }
  setenv(kEnvInLaunch, std::to_string(getpid()).c_str(), 1);
}

}  // namespace bdmpi
