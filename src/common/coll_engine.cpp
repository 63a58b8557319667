#include "common/coll_engine.h"

#include "common/error.h"

namespace bdmpi {
namespace {

constexpr std::array<CollKind, kNumCollKinds> kKinds = {
    CollKind::kBarrier, CollKind::kBcast, CollKind::kReduce,
    CollKind::kAllreduce, CollKind::kScan, CollKind::kExscan};

constexpr std::array<CollEngine, 6> kForceable = {CollEngine::kMaster, CollEngine::kFoldBcast,
                                                  CollEngine::kSchedule, CollEngine::kChain,
                                                  CollEngine::kInter, CollEngine::kNode};

// The engines that serve `kind`, as "a|b|c".
std::string EnginesOf(CollKind kind) {
  std::string names;
  for (CollEngine engine : kForceable) {
    if (EngineServes(engine, kind))
      names += (names.empty() ? "" : "|") + std::string(CollEngineName(engine));
  }
  return names;
}

std::string KindNames() {
  std::string names;
  for (CollKind kind : kKinds) names += (names.empty() ? "" : "|") + std::string(CollKindName(kind));
  return names;
}

}  // namespace

std::string_view CollKindName(CollKind kind) {
  switch (kind) {
    case CollKind::kBarrier: return "barrier";
    case CollKind::kBcast: return "bcast";
    case CollKind::kReduce: return "reduce";
    case CollKind::kAllreduce: return "allreduce";
    case CollKind::kScan: return "scan";
    case CollKind::kExscan: return "exscan";
  }
  return "?";
}

std::string_view CollEngineName(CollEngine engine) {
  switch (engine) {
    case CollEngine::kAuto: return "auto";
    case CollEngine::kMaster: return "master";
    case CollEngine::kFoldBcast: return "fold_bcast";
    case CollEngine::kSchedule: return "schedule";
    case CollEngine::kChain: return "chain";
    case CollEngine::kInter: return "inter";
    case CollEngine::kNode: return "node";
  }
  return "?";
}

bool EngineServes(CollEngine engine, CollKind kind) {
  bool scan = kind == CollKind::kScan || kind == CollKind::kExscan;
  switch (engine) {
    case CollEngine::kMaster: return !scan;
    case CollEngine::kFoldBcast: return kind == CollKind::kAllreduce;
    case CollEngine::kSchedule: return true;
    case CollEngine::kChain: return scan;
    case CollEngine::kNode:
      return kind == CollKind::kBarrier || kind == CollKind::kBcast ||
             kind == CollKind::kAllreduce;
    case CollEngine::kAuto:
    case CollEngine::kInter: return false;
  }
  return false;
}

std::string NodeCollCallName(CollKind kind) {
  switch (kind) {
    case CollKind::kBarrier: return "MPI_Barrier";
    case CollKind::kBcast: return "MPI_Bcast";
    case CollKind::kReduce: return "MPI_Reduce";
    case CollKind::kAllreduce: return "MPI_Allreduce";
    case CollKind::kScan: return "MPI_Scan";
    case CollKind::kExscan: return "MPI_Exscan";
  }
  return "?";
}

std::string NodeCollCallOfTag(int tag) {
  for (CollKind kind : kKinds) {
    if (EngineServes(CollEngine::kNode, kind) && NodeCollTag(kind) == tag)
      return NodeCollCallName(kind);
  }
  return "";
}

ForcedEngines ParseCollEngines(const std::string& text, const std::string& what) {
  ForcedEngines forced;
  forced.fill(CollEngine::kAuto);
  if (text.empty() || text == "auto") return forced;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    std::size_t equals = item.find('=');
    if (equals == std::string::npos)
      throw Error(kErrArg, what + ": '" + item + "' is not KIND=ENGINE (kinds: " + KindNames() +
                               ")");
    std::string kind_name = item.substr(0, equals), engine_name = item.substr(equals + 1);
    const CollKind* kind = nullptr;
    for (const CollKind& k : kKinds) {
      if (CollKindName(k) == kind_name) kind = &k;
    }
    if (kind == nullptr)
      throw Error(kErrArg, what + ": no collective '" + kind_name + "' (kinds: " + KindNames() +
                               ")");
    std::size_t slot = static_cast<std::size_t>(*kind);
    if (forced[slot] != CollEngine::kAuto)
      throw Error(kErrArg, what + ": " + kind_name + " is given twice");
    if (engine_name == "auto") {
      start = end + 1;
      continue;
    }
    CollEngine engine = CollEngine::kAuto;
    for (CollEngine e : kForceable) {
      if (CollEngineName(e) == engine_name) engine = e;
    }
    if (engine == CollEngine::kInter)
      throw Error(kErrArg, what + ": inter cannot be forced: it serves the calls on "
                               "intercommunicators, always, and no other (engines for " +
                               kind_name + ": " + EnginesOf(*kind) + ")");
    if (engine == CollEngine::kAuto)
      throw Error(kErrArg, what + ": no engine '" + engine_name + "' (engines for " + kind_name +
                               ": auto|" + EnginesOf(*kind) + ")");
    if (!EngineServes(engine, *kind))
      throw Error(kErrArg, what + ": " + engine_name + " cannot serve " + kind_name +
                               " (engines for " + kind_name + ": auto|" + EnginesOf(*kind) +
                               ")");
    forced[slot] = engine;
    start = end + 1;
  }
  return forced;
}

}  // namespace bdmpi
