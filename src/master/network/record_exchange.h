// How the masters' records (run report figures and trace events,
// master/observe/job_recorder.h) reach node 0 at the end of a job, and how the
// masters agree on node 0's clock for the trace.
//
// The exchange has a communicator of its own (a duplicate of the masters',
// made with the network's others), and each side of it one owner, so that
// no two threads ever wait for the same message:
// * node 0 receives in one place, the event loop's thread (Collect), after
//   the network's kFinished event or after a failure, with a deadline;
// * every other node sends its record once: the network thread as it
//   enters the shutdown barrier (Send; it waits for that send in WaitSent
//   before it reports kFinished, for as long as node 0 waits for records,
//   kRecordWait: a node 0 that died or hung after the barrier must not hold
//   the others for ever), or, after a failure before that, the event
//   loop's thread (SendAfterFailure, with a deadline). Which of the two
//   sends is decided under the mutex.
// (Were node 0's network thread to receive at the normal end and its event
// loop after a failure, either could take a record the other waited for,
// which would hang the master or name a node whose record came as missing.)
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace bdmpi {

// How long node 0 waits for the others' records at the normal end, and
// they for node 0 to take them.
inline constexpr std::chrono::seconds kRecordWait{10};

class RecordExchange {
 public:
  using Deadline = std::chrono::steady_clock::time_point;

  // NetworkControl's constructor, collective over all masters: takes `comm`, the
  // exchange's own communicator, measures node 0's clock minus this one's
  // (CLOCK_MONOTONIC; within the latency of one broadcast) and learns node
  // 0's start time.
  void Start(MPI_Comm comm, int node);

  // Event loop of a node other than 0: its record, before
  // Network::Shutdown. Nothing is exchanged unless records are posted (the
  // masters all record, or none does).
  void Post(std::string record);
  // Network thread of a node other than 0, entering the shutdown barrier:
  // sends the posted record, if any, to node 0.
  void Send();
  // Network thread, once the barrier completed: waits for that send until
  // `deadline`; false when node 0 did not take the record by then (the
  // send is left to MPI, its buffer to the process).
  bool WaitSent(Deadline deadline);

  // After a failure, a node other than 0: sends `record` to node 0 unless
  // its record is on the way already, and waits until node 0 has it or
  // `deadline`.
  void SendAfterFailure(std::string record, Deadline deadline);

  // Node 0, event loop's thread: the other nodes' records, those that came
  // (or began to come) before `deadline`, and the nodes whose did not.
  struct Collected {
    std::vector<std::string> records;
    std::vector<int> missing;  // in order
  };
  Collected Collect(Deadline deadline);

  std::int64_t clock_offset_ns() const { return clock_offset_ns_; }
  std::int64_t origin_ns() const { return origin_ns_; }  // node 0's clock

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int node_ = 0;
  int nnodes_ = 1;
  std::mutex mutex_;
  bool posted_any_ = false;
  bool sent_ = false;  // one of the two sends has started
  std::string posted_;
  MPI_Request send_request_ = MPI_REQUEST_NULL;  // Send's
  // Released if node 0 does not take it: MPI may read it until the end.
  std::unique_ptr<std::string> sending_;
  std::int64_t clock_offset_ns_ = 0;
  std::int64_t origin_ns_ = 0;
};

}  // namespace bdmpi
