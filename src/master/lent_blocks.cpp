// Lent blocks, the master's side (docs/data-path.md, "Lent blocks"): a
// large block of a collective built from point-to-point messages stays in
// its sender's memory; the master matches its message like any other, names
// the block to the receiver, and completes the send when the block goes
// back (the receiver's next request), or copies it into a file first when
// it must: it leaves the node, its sender is to be switched out, nobody on
// the node can run, or a rank may not read another's memory.
#include <sys/wait.h>
#include <unistd.h>

#include <optional>

#include "common/error.h"
#include "common/log.h"
#include "common/process_memory.h"
#include "master/master.h"

namespace bdmpi {

Payload Master::LentPayload(Slave& slave, const RequestMsg& request, bool remote) {
  // Completes, as a receive would, when the block goes back.
  AwaitedMatch awaited{request.id, request.comm, request.peer, request.tag};
  awaited.lent = true;
  slave.mailbox.AwaitMatch(awaited);
  Payload payload = payloads_.Lend(request, slave.pid, slave.index, slave.world_rank);
  // Another node's master cannot read this node's ranks.
  if (remote || lending_refused_) payloads_.Materialize(payload);
  return payload;
}

void Master::LogLending() const {
  int scope = YamaPtraceScope();
  if (!options_.single_copy) {
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

void Master::TakeBackLentBlocks() {
  for (const LentReturn& back : payloads_.TakeLentReturns()) {
    Slave& lender = slaves_[back.lender];
    if (lender.state == SlaveState::kExited || !lender.mailbox.Matched(back.send_id)) continue;
    MakeRunnableIfReady(lender);
  }
}

void Master::HandleCopyLent(Slave& slave, const RequestMsg& request) {
  slave.held_files.clear();
  if (slave.held_lent == nullptr) {
    Fail(1, "rank " + std::to_string(slave.world_rank) +
                " asked for a copy of a lent block it was not given");
    return;
  }
  Slave& lender = slaves_[slave.held_lent->lender];
  std::optional<Payload> copy;
  try {
    copy.emplace(payloads_.CopyLent(*slave.held_lent));
  } catch (const Error&) {
    // Its sender died under it: the job ends naming that rank.
    if (ReapIfExited(lender)) return;
    throw;
  }
  if (!lending_refused_) {
    lending_refused_ = true;
    BDMPI_INFO("p2p",
               "rank %d may not read the memory of rank %d (process_vm_readv refused: "
               "Yama's ptrace_scope, a seccomp filter or a security module?): blocks of "
               "collectives are copied from now on",
               slave.world_rank, slave.held_lent->lender_world_rank);
  }
  slave.held_lent.reset();  // back to its sender
  ReplyMsg reply;
  reply.type = request.type;
  payloads_.Give(*copy, copy->bytes(), io_->Window(slave.index), reply, slave.held_files);
  Reply(slave, reply);
}

bool Master::ReapIfExited(Slave& slave) {
  if (slave.state == SlaveState::kExited) return true;
  // Its exit may not be a zombie yet (the kernel frees its memory first):
  // a moment's patience, then it is not dead after all.
  for (int attempt = 0; attempt < 100; ++attempt) {
    int status = 0;
    pid_t reaped = waitpid(slave.pid, &status, WNOHANG);
    if (reaped == slave.pid) {
      OnSlaveExit(slave, status);
      return true;
    }
    if (reaped < 0) return false;
    usleep(10'000);
  }
  return false;
}

}  // namespace bdmpi
