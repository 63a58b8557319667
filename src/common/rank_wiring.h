// How a rank reads what its master told it through the environment: who it
// is and where the job's objects are (the variables, named and described in
// job_names.h). This is the runtime's wiring, not a setting: only the
// master sets these variables for its ranks, and it drops inherited values
// (SetByMaster, master/launch/spawn.cpp). Every read in a rank goes through here;
// the first takes a snapshot of them all, which later changes to the
// environment (the runtime unsets the slave token, the program may set
// anything) do not touch.
//
// Nothing here allocates: the storage-backed allocator (slave/memory) reads
// its wiring from inside malloc, before the runtime exists. A caller must
// not read before the process has its environment (`environ` set).
#pragma once

#include <cstdint>

namespace bdmpi {

enum class Wire {
  kJobId,
  kNode,
  kSlave,
  kWorldRank,
  kWorldSize,
  kNodeSize,
  kNodeCount,
  kWindowSize,
  kSpillDir,
  kSpillDirInode,
  kMemoryDir,
  kMemoryDirInode,
  kRequestQueue,
  kStorageTable,
  kGoQueue,
  kWindow,
  kSlaveToken,
  kDeferPosts,
  kMasterPid,
  kJobSettings,
  kUniverseSize,
  kSpawn,
  kCount
};

namespace wiring {

// The variable of `wire` (kEnvJobId, ...).
const char* Name(Wire wire);
// Its value in the snapshot; null when it was not set (a process that no
// master started).
const char* Find(Wire wire);
// Its value as a number, `fallback` when unset, empty or not a number.
long long Number(Wire wire, long long fallback);
// Its value, or an Error naming it when it is not set: the program uses
// libbdmpi and must be started with bdmpiexec.
const char* Require(Wire wire);
// The same as a number (atoll's and strtoull's).
long long RequireNumber(Wire wire);
std::uint64_t RequireUnsigned(Wire wire);

}  // namespace wiring
}  // namespace bdmpi
