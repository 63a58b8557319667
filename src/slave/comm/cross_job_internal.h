// What the two halves of the communicators between two jobs share:
// cross_job.cpp (the connection, point-to-point, merge and dup) and
// cross_job_coll.cpp (the collectives).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "slave/comm/cross_job.h"
#include "slave/comm/cross_job_mesh.h"
#include "slave/runtime/objects.h"

namespace bdmpi {

// Tags in a communicator's second context: the fence, the merge and the
// blocking collectives' below kCrossScheduleTags; a schedule's
// (cross_job_coll.cpp) from there on, one per operation; those of
// MPI_Comm_create_group from kCrossCreateGroupTags on; synchronous
// sends' receipts from kCrossReceiptTags on, one per send.
enum CrossTag : std::int32_t {
  kCrossFenceTag = 1,
  kCrossBcastTag,
  kCrossReduceTag,
  kCrossResultTag,
  kCrossMergeTag,
  kCrossGatherTag,
  kCrossScatterTag,
  kCrossAllgatherTag,
  kCrossAlltoallTag,
  kCrossScanTag,
};
inline constexpr std::int32_t kCrossScheduleTags = 1 << 24;
// MPI_Comm_create_group's agreements, by its tag.
inline constexpr std::int32_t kCrossCreateGroupTags = 1 << 25;
inline constexpr std::int32_t kCrossReceiptTags = 1 << 30;

// A synchronous send's receipt number (never 0), and the tag of the
// empty frame the receive that takes the send returns.
std::uint32_t NewCrossReceipt();
inline std::int32_t CrossReceiptTag(std::uint32_t receipt) {
  return kCrossReceiptTags + static_cast<std::int32_t>(receipt);
}

// Registers a communicator between two jobs, which no master knows.
MPI_Comm AddCrossComm(CommInfo info, std::shared_ptr<const CrossJobComm> cross);

inline const CrossJobComm& CrossOf(const CommInfo& comm) { return *comm.cross; }
inline std::int32_t CrossCollContext(const CommInfo& comm) { return comm.cross->context + 1; }
// This rank's mesh index.
inline int CrossMe(const CommInfo& comm) {
  return comm.cross->local[static_cast<std::size_t>(comm.rank)];
}

// Copies a frame into `count` elements at `buffer` and sets the status
// (its source as a rank of the peer group); acknowledges a synchronous
// send's frame.
void DeliverFrame(const Frame& frame, const CrossJobComm& cross, void* buffer, int count,
                  MPI_Datatype datatype, MPI_Status* status);
// Every member of the communicator (both groups) waits for the others,
// at the lowest mesh index.
void CrossFence(const CrossJobComm& cross, int me, std::int32_t context);
[[noreturn]] void CrossIntracommOnly(const char* what);

// A rank's part in a rooted collective: the root, a member of the group
// that sends to or receives from the root, or none (MPI_PROC_NULL in an
// intercommunicator's root group). Checks `root` where it names a rank.
enum class RootedPart { kRoot, kMember, kNone };
RootedPart CrossPartIn(const CommInfo& comm, int root);

}  // namespace bdmpi
