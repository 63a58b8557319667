// The collectives and the communicators they make, the master's side: the
// two-phase protocol every collective follows on a node (collective.cpp),
// each kind's part (bcast.cpp, reduce.cpp, comm.cpp's split, idup_split.cpp),
// the inter-node step when a communicator spans nodes, and communicators
// registered by their members (comm_register.cpp) or freed. Each pending
// collective's state is its kind's (collective.h); what a slave has joined
// or created is kept here, by slave.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/protocol.h"
#include "master/coll/collective.h"
#include "master/coll/step_signature.h"
#include "master/comm/comm_registry.h"
#include "master/master_services.h"
#include "master/memory/payload_store.h"
#include "master/network/network.h"
#include "master/network/step_conflict.h"
#include "master/observe/job_recorder.h"
#include "master/slave.h"

namespace bdmpi {

class Collectives {
 public:
  Collectives(MasterServices& master, PayloadStore& payloads, CommRegistry& comms,
              JobRecorder& recorder, int node)
      : master_(master), payloads_(payloads), comms_(comms), recorder_(recorder), node_(node) {}
  Collectives(const Collectives&) = delete;
  Collectives& operator=(const Collectives&) = delete;
  // `slave` has exited and its slot takes a new rank: its collectives'
  // sequence numbers go, its count of creations stays, so that the new
  // rank's communicator ids are not the old one's.
  void ForgetMember(const Slave& slave) { MemberOf(slave).collective_seq.clear(); }

  // The message table's handlers and functions (collective.cpp, comm.cpp,
  // comm_register.cpp, bcast.cpp, reduce.cpp).
  void HandleCollective(Slave& slave, const RequestMsg& request,
                        const std::byte* inline_payload);
  bool CollectiveReady(const Slave& slave, const RequestMsg& request) const;
  ReplyMsg CompleteCollective(Slave& slave, const RequestMsg& request);
  void ContributeBcast(Collective& collective, Slave& slave, const RequestMsg& request,
                       const std::byte* inline_payload);
  void ContributeReduce(Collective& collective, Slave& slave, const RequestMsg& request,
                        const std::byte* inline_payload);
  // (A split's part has no payload: the table's column is one type.)
  void ContributeSplit(Collective& collective, Slave& slave, const RequestMsg& request,
                       const std::byte* inline_payload);
  // The steps' data: a barrier's root and operation only; a bcast's and a
  // reduction's buffer; a split's SplitEntry records in node-block order
  // for the allgather.
  void PrepareBarrierStep(Collective& collective, CollectiveStep& step);
  void PrepareBcastStep(Collective& collective, CollectiveStep& step);
  void PrepareReduceStep(Collective& collective, CollectiveStep& step);
  void PrepareSplitStep(Collective& collective, CollectiveStep& step);
  // Builds the new communicators once every member's entry is known.
  void FinishSplit(Collective& collective);
  // Bcast, reductions: the result, into the member's window or a file.
  ReplyMsg GiveResult(Slave& slave, Collective& collective, const RequestMsg& request);
  ReplyMsg CompleteSplit(Slave& slave, Collective& collective, const RequestMsg& request);
  void HandleCommFree(Slave& slave, const RequestMsg& request);
  // A communicator its members agreed on (comm_register.cpp): a fresh
  // id, this node's channel for it, then its members.
  void HandleCommNewId(Slave& slave, const RequestMsg& request);
  void HandleCommChannel(Slave& slave, const RequestMsg& request);
  void HandleCommMembers(Slave& slave, const RequestMsg& request,
                         const std::byte* inline_payload);

  // The inter-node step of (comm, seq) has completed (the network's event).
  void OnInterNodeStepDone(int comm, std::uint64_t seq);
  // Ends the job naming the collectives of two nodes' ranks in a step whose
  // signatures differ (step_mismatch.cpp).
  void FailStepMismatch(const StepConflict& conflict);
  // Ends the job if a pending collective lacks a member that left; with
  // `leaving` (a rank just finalized), only if someone waits in it.
  void FailCollectivesMissing(const Slave* leaving);
  // Drops every pending collective (the master is going).
  void Clear() { collectives_.clear(); }

 private:
  using Pending = std::map<std::pair<int, std::uint64_t>, Collective>;

  Collective& JoinCollective(Slave& slave, const RequestMsg& request);
  void FinishCollective(int comm, std::uint64_t seq);  // wakes its waiters
  void StartInterNodeStep(Collective& collective);
  StepSignature SignatureOf(const Collective& collective) const;
  void FoldContributions(Collective& collective);
  // Local members of the communicator that finalized or exited before
  // joining `collective` ("rank 3, rank 5"; empty: none).
  std::string MembersThatLeft(const Collective& collective) const;
  // Whether `member` has joined `collective` (or a later one on its
  // communicator).
  bool JoinedAfter(const Slave& member, const Collective& collective) const;
  // The next of the slave's communicator creations (CommId).
  std::uint32_t NextCreation(const Slave& slave);
  // Drops a finished collective; the communicator goes too if it was freed.
  void EraseCollective(Pending::iterator it);
  // MPI_Comm_idup (idup_split.cpp): a member that joins a split with a
  // receive id is not blocked; the outcome completes that receive.
  void JoinWithoutWaiting(Collective& collective, Slave& slave, const RequestMsg& request);
  void HandOutToNonblocking(Collective& collective);
  void DropCommIfUnused(int id);
  int AllocateChannel();
  // The run report's counts (observe.cpp's part for collectives): whether
  // this node counts a collective on `comm` (its first node does).
  bool CountedHere(const MasterComm& comm) const;
  void RecordCollective(const Collective& collective, const MasterComm& comm);
  void RecordStepDone(int comm, std::uint64_t seq);

  const MasterComm& Comm(int id) const { return comms_.Get(id); }
  int NodeOf(int world_rank) const { return comms_.NodeOf(world_rank); }

  MasterServices& master_;
  PayloadStore& payloads_;
  CommRegistry& comms_;
  JobRecorder& recorder_;
  int node_;
  Pending collectives_;
  // Channels handed out for communicators being registered, by id, until
  // their members are registered (comm_register.cpp).
  std::map<int, int> registering_channels_;
  // What each slave has joined and created: the sequence number of its
  // next collective, per communicator; its count of communicator creations
  // (CommId): 0 names its MPI_COMM_SELF, 1 and 2 the predefined BDMPI
  // communicators it may lead.
  struct Member {
    std::map<int, std::uint64_t> collective_seq;
    std::uint32_t comm_creations = kFirstCommCreation;
  };
  // By slave index (a vector: every request of a collective looks here).
  Member& MemberOf(const Slave& slave);
  std::vector<Member> members_;
};

}  // namespace bdmpi
