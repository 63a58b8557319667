#include "common/rank_wiring.h"

#include <cstdlib>
#include <string>

#include "common/error.h"
#include "common/job_names.h"

namespace bdmpi::wiring {
namespace {

constexpr int kWires = static_cast<int>(Wire::kCount);

constexpr const char* kNames[kWires] = {
    kEnvJobId,         kEnvNode,          kEnvSlave,        kEnvWorldRank,
    kEnvWorldSize,     kEnvNodeSize,      kEnvNodeCount,    kEnvWindowSize,
    kEnvSpillDir,      kEnvSpillDirInode, kEnvMemoryDir,    kEnvMemoryDirInode,
    kEnvRequestQueue,  kEnvStorageTable,  kEnvGoQueue,      kEnvWindow,
    kEnvSlaveToken,    kEnvDeferPosts,    kEnvMasterPid,    kEnvJobSettings,
    kEnvUniverseSize,  kEnvSpawn,
};

struct Snapshot {
  // Pointers into the environment: glibc never frees an environment
  // string, even one unset or replaced later.
  const char* values[kWires] = {};
};

const Snapshot& Taken() {
  // A function-local static: thread-safe, and its guard allocates nothing.
  static const Snapshot snapshot = [] {
    Snapshot taken;
    for (int i = 0; i < kWires; ++i) taken.values[i] = std::getenv(kNames[i]);
    return taken;
  }();
  return snapshot;
}

}  // namespace

const char* Name(Wire wire) { return kNames[static_cast<int>(wire)]; }

const char* Find(Wire wire) { return Taken().values[static_cast<int>(wire)]; }

long long Number(Wire wire, long long fallback) {
  const char* text = Find(wire);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  return *end == '\0' ? value : fallback;
}

const char* Require(Wire wire) {
  const char* value = Find(wire);
  if (value == nullptr)
    throw Error(kErrOther,
                std::string("this program uses BDMPI's libbdmpi and must be "
                            "started with bdmpiexec (") + Name(wire) + " is not set)");
  return value;
}

long long RequireNumber(Wire wire) { return std::atoll(Require(wire)); }

std::uint64_t RequireUnsigned(Wire wire) { return std::strtoull(Require(wire), nullptr, 10); }

}  // namespace bdmpi::wiring
