// What keeps a BDMPI launch from starting itself again. The runtime starts
// processes in a chain (bdmpiexec -> mpirun/srun -> bdmprun -> ranks; a
// program started directly execs bdmpiexec on itself), and a setting that
// sends one link back to an earlier one (LD_PRELOAD of libbdmpi reaching
// bdmprun, BDMPI_BDMPRUN or BDMPI_MPIRUN naming bdmpiexec or an MPI
// program, BDMPI_BDMPIEXEC naming the program) would repeat the chain
// without end. Each link therefore marks what it starts, and a process that
// finds the mark where it must not be refuses with a message instead.
#pragma once

#include <string>

namespace bdmpi {

// Set by bdmpiexec (its pid) for everything it starts up to the masters:
// mpirun, orted, srun, bdmprun. The masters remove it from the ranks'
// environment, so only a process of the launch itself has it: bdmpiexec
// refuses to start there, and libbdmpi's MPI_Init refuses to act there.
inline constexpr const char* kEnvInLaunch = "BDMPI_IN_LAUNCH";
// The LD_PRELOAD meant for the ranks: bdmpiexec moves the user's LD_PRELOAD
// (its own environment's, or -x / --env LD_PRELOAD) here, so that it
// reaches neither mpirun nor the masters; each master gives it back to the
// ranks as LD_PRELOAD.
inline constexpr const char* kEnvRanksPreload = "BDMPI_RANKS_LD_PRELOAD";
// "off": the master does not preload libbdmpi into ranks whose program does
// not link it; a path: preload that library instead of the one beside
// bdmprun. Set by bdmpiexec from --preload.
inline constexpr const char* kEnvPreload = "BDMPI_PRELOAD";
// Set by a singleton start (its pid) for the bdmpiexec it execs, which
// removes it. A process that calls MPI_Init with it still set was started
// by a launcher that is not bdmpiexec (BDMPI_BDMPIEXEC naming the program
// itself, or a script that runs it) and would start itself again.
inline constexpr const char* kEnvSingletonStart = "BDMPI_SINGLETON_START";

// The path of a shared object loaded in this process whose file name
// starts with `name` ("libbdmpi.so", "libmpi.so"), or "" when none is.
std::string LoadedLibrary(const char* name);

// This process's executable, as /proc/self/exe names it ("" if unknown).
std::string OwnExecutable();

}  // namespace bdmpi
