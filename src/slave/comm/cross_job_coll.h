// The nonblocking and persistent collectives on a communicator between two
// jobs (cross_job.h), and its blocking MPI_Alltoallw and reduce-scatters,
// as one-round schedules over the mesh: the design of coll/nbc.h, whose
// schedules run through the masters, which do not know these
// communicators. When an operation starts, the rank sends every frame it
// has to send, with data it has then; each frame it receives is a step,
// completed in order (by MPI_Test and MPI_Wait and their kin), and local
// actions copy or fold after the steps before them. So a rank never waits
// for something another rank would do only after its own call returned:
// `MPI_Ibarrier; ...; MPI_Wait` completes at both ends whatever either
// does in between. Every operation takes the communicator's next schedule
// tag (members start their collectives in one order, so they agree), so
// several may be in flight at once.
//
// The algorithms are the plainest one-round ones: a rank sends its
// contribution to every rank that needs it, and a reduction folds at
// every rank that needs the result, in rank order (user-defined
// operations work); a reduce-scatter sends the whole vector and each
// rank keeps its part of the fold. Each plan has the arguments of the
// plan of the same collective in coll/nbc_plans.h, so that the MPI
// entry points choose between the two alike.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "slave/coll/nbc.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/cross_job_mesh.h"
#include "slave/runtime/objects.h"

namespace bdmpi {

// One rank's part of one execution of a collective between two jobs.
class CrossSchedule {
 public:
  using Take = std::function<void(Frame&)>;
  using Action = std::function<void()>;

  // Takes the communicator's next schedule tag.
  explicit CrossSchedule(const CommInfo& comm);

  // Sends now, to the rank of mesh index `to` (this one's own queue when
  // it is this rank).
  void SendWire(int to, const void* data, std::uint64_t bytes);
  void SendElements(int to, const void* buffer, int count, MPI_Datatype datatype);
  // A step: the frame of this operation from mesh index `from`.
  void Recv(int from, Take take);
  // A local action, run when the steps before it are complete.
  void Then(Action action);

  bool done() const { return next_ == steps_.size(); }
  // Completes the steps whose frames are there; whether all are.
  bool Test();
  void Wait();

 private:
  struct Step {
    int from = -1;  // -1: a local action
    Take take;
    Action action;
  };
  bool Advance(bool wait);

  std::shared_ptr<const CrossJobComm> cross_;
  std::int32_t context_;
  std::int32_t tag_;
  std::vector<Step> steps_;
  std::size_t next_ = 0;
};

// An execution of a collective, checked when the plan is made; called at
// each start.
using CrossPlan = std::function<CrossSchedule()>;

CrossPlan CrossBarrierPlan(MPI_Comm comm);
CrossPlan CrossBcastPlan(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
CrossPlan CrossGatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
CrossPlan CrossGathervPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           int root, MPI_Comm comm);
CrossPlan CrossScatterPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
CrossPlan CrossScattervPlan(const void* send, const int sendcounts[], const int displs[],
                            MPI_Datatype sendtype, void* recv, int recvcount, MPI_Datatype recvtype,
                            int root, MPI_Comm comm);
CrossPlan CrossAllgatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
CrossPlan CrossAllgathervPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                              MPI_Comm comm);
CrossPlan CrossAlltoallPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
CrossPlan CrossAlltoallvPlan(const void* send, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void* recv, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
CrossPlan CrossAlltoallwPlan(const void* send, const int sendcounts[], const int sdispls[],
                             const MPI_Datatype sendtypes[], void* recv, const int recvcounts[],
                             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
CrossPlan CrossReducePlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                          int root, MPI_Comm comm);
CrossPlan CrossAllreducePlan(const void* send, void* recv, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm);
CrossPlan CrossReduceScatterPlan(const void* send, void* recv, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
CrossPlan CrossReduceScatterBlockPlan(const void* send, void* recv, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
CrossPlan CrossScanPlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm);
CrossPlan CrossExscanPlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm);

// MPI_Comm_idup (and _with_info) of `parent`: *newcomm names the
// duplicate at once, usable when the request completes. Its context pair
// is agreed as a one-round schedule on the parent: each member sends the
// pair it proposes at the call (and keeps a window after it that its
// other agreements meanwhile skip); the highest is taken.
MPI_Request CrossIdup(MPI_Comm parent, MPI_Comm* newcomm);

// Runs the plan to completion (a blocking call).
void RunCross(const CrossPlan& plan);
// A nonblocking collective's request, started; a persistent one's,
// inactive until MPI_Start.
MPI_Request StartCross(CrossPlan plan, MPI_Comm comm);
MPI_Request NewCrossPersistent(CrossPlan plan, MPI_Comm comm);

// The request of the collective of plan `plan`: started, or (`persistent`)
// inactive until MPI_Start. One on a communicator between two jobs runs
// over the jobs' sockets instead (`cross`, which takes the same
// arguments), as the masters do not know such a communicator.
template <class... Args>
MPI_Request PlannedRequest(bool persistent, MPI_Comm comm, CollectivePlan (*plan)(Args...),
                           CrossPlan (*cross)(Args...), std::type_identity_t<Args>... args) {
  if (CrossJob(comm) != nullptr)
    return persistent ? NewCrossPersistent(cross(args...), comm)
                      : StartCross(cross(args...), comm);
  return persistent ? NewPersistent(plan(args...), comm) : StartNonblocking(plan(args...), comm);
}

}  // namespace bdmpi
