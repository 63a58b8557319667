// Lent blocks, the master's side (docs/data-path.md, "Lent blocks"): a
// large block of a collective built from point-to-point messages stays in
// its sender's memory; the master matches its message like any other, names
// the block to the receiver, and completes the send when the block goes
// back (the receiver's next request), or copies it into a file first when
// it must: it leaves the node, its sender is to be switched out, nobody on
// the node can run, or a rank may not read another's memory.
#include "master/p2p/p2p.h"

#include <optional>

#include "common/error.h"
#include "common/log.h"
#include "common/process_memory.h"

namespace bdmpi {

Payload PointToPoint::LentPayload(Slave& slave, const LentSendArgs& lent,
                                  const RequestMsg& request, bool remote) {
  // Completes, as a receive would, when the block goes back.
  AwaitedMatch awaited{lent.id, request.comm, request.peer, request.tag};
  awaited.lent = true;
  mailbox(slave).AwaitMatch(awaited);
  Payload payload = payloads_.Lend(lent, slave.pid, slave.index, slave.world_rank);
  // Another node's master cannot read this node's ranks.
  if (remote || lending_refused_) payloads_.Materialize(payload);
  return payload;
}

void PointToPoint::LogLending() const {
  int scope = YamaPtraceScope();
  if (!single_copy_) {
    BDMPI_INFO("p2p", "single copy off (--single-copy off): blocks of collectives are copied");
  } else if (scope >= 2) {
    BDMPI_INFO("p2p",
               "single copy off: Yama's ptrace_scope is %d, so no rank may read another's "
               "memory; blocks of collectives are copied",
               scope);
  } else {
    BDMPI_INFO("p2p", "single copy on: ranks read large blocks of collectives from each other "
               "(Yama's ptrace_scope %d)", scope);
  }
}

void PointToPoint::TakeBackLentBlocks() {
  for (const LentReturn& back : payloads_.TakeLentReturns()) {
    Slave& lender = master_.slaves()[back.lender];
    if (lender.state == SlaveState::kExited || !mailbox(lender).Matched(back.send_id)) continue;
    master_.MakeRunnableIfReady(lender);
  }
}

void PointToPoint::HandleCopyLent(Slave& slave, const RequestMsg& request) {
  slave.held_files.clear();
  if (peer(slave).held_lent == nullptr) {
    master_.Fail(1, "rank " + std::to_string(slave.world_rank) +
                        " asked for a copy of a lent block it was not given");
    return;
  }
  Slave& lender = master_.slaves()[peer(slave).held_lent->lender];
  std::optional<Payload> copy;
  try {
    copy.emplace(payloads_.CopyLent(*peer(slave).held_lent));
  } catch (const Error&) {
    // Its sender died under it: the job ends naming that rank.
    if (master_.ReapIfExited(lender)) return;
    throw;
  }
  if (!lending_refused_) {
    lending_refused_ = true;
    BDMPI_INFO("p2p",
               "rank %d may not read the memory of rank %d (process_vm_readv refused: "
               "Yama's ptrace_scope, a seccomp filter or a security module?): blocks of "
               "collectives are copied from now on",
               slave.world_rank, peer(slave).held_lent->lender_world_rank);
  }
  peer(slave).held_lent.reset();  // back to its sender
  ReplyMsg reply;
  reply.type = request.type;
  payloads_.Give(*copy, copy->bytes(), master_.Window(slave.index), reply, slave.held_files);
  master_.Reply(slave, reply);
}

}  // namespace bdmpi
