#include "bdmpiexec/foreign_options.h"

#include <vector>

namespace bdmpi {
namespace {

NativeOption RanksPerNode(const std::string& count) { return {"-ns", count}; }

// "h1:4,h2" (Open MPI's slot counts after a colon) -> --hosts h1,h2.
NativeOption Hosts(const std::string& list) {
  std::string hosts;
  bool in_slots = false;
  for (char c : list) {
    if (c == ',') in_slots = false;
    else if (c == ':') in_slots = true;
    if (!in_slots) hosts += c;
  }
  return {"--hosts", hosts};
}

const char* const kLayout = "ranks are laid out in blocks over the nodes (-ns per node)";
const char* const kMca = "Open MPI's MCA parameters do not apply to BDMPI's ranks";

const std::vector<ForeignOption>& Table() {
  static const std::vector<ForeignOption> table = {
      // BDMPI always runs more ranks than cores, and as any user.
      {"--oversubscribe", 0, nullptr, nullptr},
      {"-oversubscribe", 0, nullptr, nullptr},
      {"--allow-run-as-root", 0, nullptr, nullptr},
      {"-allow-run-as-root", 0, nullptr, nullptr},
      // Ranks per node: Open MPI's -N and --npernode, MPICH's -ppn.
      {"-N", 1, RanksPerNode, nullptr},
      {"--npernode", 1, RanksPerNode, nullptr},
      {"-npernode", 1, RanksPerNode, nullptr},
      {"-ppn", 1, RanksPerNode, nullptr},
      {"-H", 1, Hosts, nullptr},
      {"--host", 1, Hosts, nullptr},
      {"-host", 1, Hosts, nullptr},
      {"--bind-to", 1,
       [](const std::string& value) {
         return value == "none" ? NativeOption{"--no-bind", ""} : NativeOption{};
       },
       nullptr},  // other values: BDMPI binds its running ranks itself
      {"--map-by", 1, nullptr, kLayout},
      {"--rank-by", 1, nullptr, kLayout},
      {"--mca", 2, nullptr, kMca},
      {"-mca", 2, nullptr, kMca},
  };
  return table;
}

}  // namespace

const ForeignOption* FindForeignOption(const std::string& arg) {
  for (const ForeignOption& option : Table())
    if (arg == option.name) return &option;
  return nullptr;
}

const char* const kForeignOptionsHelp =
    "Also accepted as Open MPI's mpirun and MPICH's mpiexec spell them:\n"
    "-N, --npernode, -ppn N (as -ns N); -H, --host H1,H2 (as --hosts, slot\n"
    "counts dropped); --bind-to none (as --no-bind); and, without effect,\n"
    "--oversubscribe, --allow-run-as-root, --bind-to, --map-by, --rank-by\n"
    "and --mca KEY VALUE (the last three with a warning).\n";

}  // namespace bdmpi
