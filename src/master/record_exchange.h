// How the masters' records (run report figures and trace events,
// master/job_recorder.h) reach node 0 at the end of a job, and how the
// masters agree on node 0's clock for the trace. The network thread does
// the MPI calls: AlignClocks when it is built (collective over all
// masters), Send when it enters the shutdown barrier, Receive when that
// barrier has completed (every other master has then sent its record). The
// event loop posts its record before Network::Shutdown and, on node 0,
// takes the others' after the network's kFinished event.
#pragma once

#include <mpi.h>

#include <cstdint>
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

  std::int64_t clock_offset_ns() const { return clock_offset_ns_; }
  std::int64_t origin_ns() const { return origin_ns_; }  // node 0's clock

 private:
  std::mutex mutex_;
  std::string posted_;
  std::vector<std::string> received_;
  MPI_Request send_request_ = MPI_REQUEST_NULL;
  std::string sending_;
  std::int64_t clock_offset_ns_ = 0;
  std::int64_t origin_ns_ = 0;
};

}  // namespace bdmpi
