// How the masters' records (run report figures and trace events,
// master/job_recorder.h) reach node 0 at the end of a job, and how the
// masters agree on node 0's clock for the trace. The network thread does
// the MPI calls: AlignClocks when it is built (collective over all
// masters), Send when it enters the shutdown barrier, Receive when that
// barrier has completed (every other master has then sent its record). The
// event loop posts its record before Network::Shutdown and, on node 0,
// takes the others' after the network's kFinished event.
//
// After a failure no shutdown barrier completes: the event loop's thread
// itself sends (SendAfterFailure) or, on node 0, receives
// (ReceiveAfterFailure) on the communicator AlignClocks was given, each
// with a deadline, before the master ends (mpirun may kill the others once
// one has ended). A node whose network thread already sent its record at
// its normal end does not send again.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace bdmpi {

class RecordExchange {
 public:
  // Network thread (or its constructor): measures node 0's clock minus
  // this one's (CLOCK_MONOTONIC; within the latency of one broadcast) and
  // learns node 0's start time.
  void AlignClocks(MPI_Comm comm, int node);
  // Non-zero nodes send their posted record (if any) to node 0.
  void Send(MPI_Comm comm, int node);
  // Node 0: receives every other node's record; others: waits for their send.
  void Receive(MPI_Comm comm, int node, int nnodes);

  // Event loop: this node's record, before Network::Shutdown. Empty: none.
  void Post(std::string record);
  // Node 0, after kFinished: the other nodes' records.
  std::vector<std::string> TakeReceived();

  using Deadline = std::chrono::steady_clock::time_point;
  // After a failure, a node other than 0: sends `record` to node 0 unless
  // its record is on the way already, and waits until node 0 has it or
  // `deadline`.
  void SendAfterFailure(std::string record, Deadline deadline);
  // After a failure, node 0: receives the other nodes' records (then
  // TakeReceived) until all have come or `deadline`; returns the nodes
  // whose record did not come, in order.
  std::vector<int> ReceiveAfterFailure(Deadline deadline);

  std::int64_t clock_offset_ns() const { return clock_offset_ns_; }
  std::int64_t origin_ns() const { return origin_ns_; }  // node 0's clock

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;  // from AlignClocks
  int node_ = 0;
  int nnodes_ = 1;
  std::mutex mutex_;
  bool sent_ = false;  // Send has started the normal end's send
  std::string posted_;
  std::vector<std::string> received_;
  MPI_Request send_request_ = MPI_REQUEST_NULL;
  std::string sending_;
  std::int64_t clock_offset_ns_ = 0;
  std::int64_t origin_ns_ = 0;
};

}  // namespace bdmpi
