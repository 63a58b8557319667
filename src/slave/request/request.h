// Requests: the nonblocking operations in flight, of every kind, behind one
// interface. Point-to-point (p2p/p2p_internal.h), the schedules of
// nonblocking and persistent collectives (coll/nbc.h), MPI_Comm_idup
// (comm/comm_idup.cpp), generalized requests (generalized.h) and the
// requests of MPI-IO's nonblocking calls each derive from Request; the
// completion calls (completion.h) drive them all the same way and know no
// kind.
//
// A request completes in one of two ways. Either the master completes the
// receive that `id` names (a receive's message, a synchronous send's
// match, a collective's next step), and Absorb takes that completion; or
// something other than the master completes it (the program, for a
// generalized request), which Poll looks for and Await waits for.
//
// A new kind (one-sided, partitioned, ...) derives from Request and hands
// its object to NewRequest, which gives the MPI_Request. While not done it
// either sets `id` to the master's receive that completes it (and overrides
// Absorb to take that reply: a kind with several steps sets the next `id`
// and stays not done), or overrides CompletesOutsideMaster, Poll and Await.
// It overrides Start if persistent, Complete/PeekStatus if its status is
// not `status`, Cancel if something can be withdrawn (or throws Error to
// refuse), and Free if the master holds something of it that must go.
// The completion calls (completion.h) then serve it with no change.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>

#include "common/protocol.h"

namespace bdmpi::memory {
class DeadWhileWaiting;
}

namespace bdmpi {

class Request {
 public:
  explicit Request(MPI_Comm comm_handle) : comm(comm_handle) {}
  virtual ~Request() = default;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  MPI_Comm comm;  // for its error handler
  bool done = false;
  // Persistent requests (MPI_Send_init, MPI_Ibcast_init, ...): between a
  // completion and the next MPI_Start the request is inactive, which the
  // completion calls treat like MPI_REQUEST_NULL.
  bool persistent = false;
  bool active = true;
  // The master's receive it waits for next (while not done, unless it
  // completes outside the master).
  std::uint64_t id = 0;
  MPI_Status status{};

  // Whether something other than the master completes it.
  virtual bool CompletesOutsideMaster() const { return false; }
  // Makes the progress it can without the master; returns `done`.
  virtual bool Poll() { return done; }
  // Before the completion calls ask the master about it: the progress it
  // can make alone (a receive a sender of the node wrote directly; when
  // `wait`, after polling for it briefly), or it makes sure the master
  // knows what it waits for. This one: nothing.
  virtual void ProgressAlone(bool wait) { (void)wait; }
  // Before a test (MPI_Test, MPI_Testany, ...; not a wait) asks the master
  // about it: true when it waits only for what the rank sees itself, so
  // that the test answers "not yet" without the master. This one: false.
  virtual bool TestHere() { return false; }
  // Blocks until done; only for one that completes outside the master.
  virtual void Await();
  // Before MPI_Wait asks the master about it: adds to `dead` the receive
  // buffers its completion overwrites whole and nothing reads before
  // (memory/dead_pages.h). This one: none.
  virtual void AddOverwritten(memory::DeadWhileWaiting& dead) const { (void)dead; }
  // Takes the master's completion of receive `id`: then done, or waiting
  // for its next receive (a schedule with steps left). This one: done,
  // with an empty status (a synchronous send's match).
  virtual void Absorb(const ReplyMsg& reply);
  // MPI_Start of an inactive persistent request.
  virtual void Start();
  // Hands out the status of a done request (MPI_Wait, MPI_Test, ...);
  // returns the operation's error class. Called once per completion,
  // after a request that is not persistent left the table.
  virtual int Complete(MPI_Status* out);
  // The same for MPI_Request_get_status, which leaves the request.
  virtual int PeekStatus(MPI_Status* out);
  // MPI_Cancel; throws to refuse it. This one: nothing to withdraw (it
  // completes as usual).
  virtual void Cancel() {}
  // MPI_Request_free. Returns whether its table slot goes now; false: the
  // kind frees it later (FreeRequest). This one: a receive the master
  // still holds keeps its place in matching order and drops its message.
  virtual bool Free();
};

// The request table. Handles stay valid until freed; the objects never
// move, so a reference stays valid while its handle is.
MPI_Request NewRequest(std::unique_ptr<Request> request);
// Throws kErrRequest for handles that name no request in flight.
Request& LookupRequest(MPI_Request request);
// Removes it from the table and hands it over.
std::unique_ptr<Request> TakeRequest(MPI_Request request);
void FreeRequest(MPI_Request request);

// A request complete when made (the operation is done already), that
// hands out `status`.
MPI_Request NewDoneRequest(MPI_Comm comm, const MPI_Status& status);

// Tells the master about receive `id` (kWaitRecv, kTestRecv, kFreeRecv).
RequestMsg ReceiveIdRequest(MsgType type, std::uint64_t id);

}  // namespace bdmpi
