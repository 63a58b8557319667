// Which mpirun starts the masters of a job on several nodes.
#pragma once

#include <string>

namespace bdmpi {

// Open MPI's mpirun: $BDMPI_MPIRUN, else the one BDMPI was built with, else
// the first mpirun in PATH, skipping any that is bdmpiexec itself: with
// BDMPI's bin first in PATH, "mpirun" is BDMPI's own.
std::string OpenMpiMpirun();

}  // namespace bdmpi
