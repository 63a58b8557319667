// BDMPI's extensions that tell where a communicator's members run (bdmpi.h):
// local, from the members' world ranks and the job's rank layout.
#include <bdmpi.h>
#include <mpi.h>

#include <set>

#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

struct NodeInfo {
  int nsize = 0, nrank = 0, lsize = 0, lrank = 0, rrank = -1;
};

NodeInfo Describe(MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  Runtime* runtime = Runtime::Instance();
  RankLayout layout = runtime->layout();
  int my_node = runtime->node();
  std::set<int> nodes;
  NodeInfo info;
  for (int r = 0; r < comm.size; ++r) {
    int node = layout.NodeOf(comm.WorldRank(r));
    nodes.insert(node);
    if (node != my_node) continue;
    if (info.rrank < 0) info.rrank = r;
    if (r < comm.rank) ++info.lrank;
    ++info.lsize;
  }
  info.nsize = static_cast<int>(nodes.size());
  for (int node : nodes) {
    if (node < my_node) ++info.nrank;
  }
  return info;
}

template <typename F>
int Query(const char* name, MPI_Comm comm, int* out, F field) {
  return Guard(name, comm, [&] { *out = field(Describe(comm)); });
}

}  // namespace
}  // namespace bdmpi

extern "C" {

int BDMPI_Comm_nsize(MPI_Comm comm, int* nsize) {
  return bdmpi::Query("BDMPI_Comm_nsize", comm, nsize, [](const auto& i) { return i.nsize; });
}
int BDMPI_Comm_nrank(MPI_Comm comm, int* nrank) {
  return bdmpi::Query("BDMPI_Comm_nrank", comm, nrank, [](const auto& i) { return i.nrank; });
}
int BDMPI_Comm_lsize(MPI_Comm comm, int* lsize) {
  return bdmpi::Query("BDMPI_Comm_lsize", comm, lsize, [](const auto& i) { return i.lsize; });
}
int BDMPI_Comm_lrank(MPI_Comm comm, int* lrank) {
  return bdmpi::Query("BDMPI_Comm_lrank", comm, lrank, [](const auto& i) { return i.lrank; });
}
int BDMPI_Comm_rrank(MPI_Comm comm, int* rrank) {
  return bdmpi::Query("BDMPI_Comm_rrank", comm, rrank, [](const auto& i) { return i.rrank; });
}

}  // extern "C"
