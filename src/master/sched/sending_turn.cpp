// When a test that finds nothing lets the others run first (Master::Yield).
//
// A polling loop must not hold a running slot forever, so such a test
// yields whenever another rank is runnable. But a rank that tests right
// after a send is streaming, not waiting: an active-message library
// (Graph500's AML) flushes an aggregation buffer and then polls its
// receives once or twice, thousands of times in a row. Out of core, each of
// those yields hands the slot to a rank whose data must be read back, and
// takes this one's memory for it: the sender is written back and read in
// again for every buffer it flushes. So while the next rank could not run
// beside it without that, a rank's first few tests after each send are
// answered at once. A turn kept this way is bounded in time, so that a
// rank that keeps sending while it waits for an answer (a heartbeat) lets
// the rank that answers run.
#include "master/master.h"
#include "master/observe/job_recorder.h"

namespace bdmpi {

namespace {

// Tests that find nothing and still keep the turn, after each send: AML
// tests its receives from other nodes and from its own node, and its send
// requests, between two flushes.
constexpr int kTestsAfterSend = 4;

// How long since its resume a rank may keep its turn by sending. About
// what switching a rank of a few hundred MiB out and in again costs at this
// machine's disk (docs/scheduling-and-memory.md, "Out-of-core
// performance"): a longer turn would gain little, a shorter one would
// switch a streaming rank out more often than its sends are worth.
constexpr std::int64_t kSendingTurnNs = 1'000'000'000;

}  // namespace

bool Master::TestYields(Slave& slave, const RequestMsg& request) {
  if (request.sent != 0) slave.tests_after_send = kTestsAfterSend;
  if (slaves_.idle()) return false;
  if (slave.tests_after_send == 0) return true;
  --slave.tests_after_send;
  if (MonotonicNs() - slave.resumed_ns >= kSendingTurnNs) return true;
  // Only where yielding costs the sender its memory: in memory the next
  // rank resumes beside it, and a yield costs a hand-over.
  return memory_.RoomToRunAnother();
}

}  // namespace bdmpi
