#include "master/record_exchange.h"

#include "master/job_recorder.h"

namespace bdmpi {
namespace {

// A tag of the control communicator that ProgressControl never probes.
constexpr int kTagRecord = 3;

}  // namespace

void RecordExchange::AlignClocks(MPI_Comm comm, int node) {
  MPI_Barrier(comm);
  std::int64_t node0_now = MonotonicNs();
  MPI_Bcast(&node0_now, 1, MPI_INT64_T, 0, comm);
  std::int64_t now = MonotonicNs();
  clock_offset_ns_ = node == 0 ? 0 : node0_now - now;
  origin_ns_ = node0_now;
}

void RecordExchange::Post(std::string record) {
  std::lock_guard<std::mutex> lock(mutex_);
  posted_ = std::move(record);
}

void RecordExchange::Send(MPI_Comm comm, int node) {
  if (node == 0) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sending_.swap(posted_);
  }
  // Empty too: node 0 counts one record per node.
  MPI_Isend(sending_.data(), static_cast<int>(sending_.size()), MPI_CHAR, 0, kTagRecord, comm,
            &send_request_);
}

void RecordExchange::Receive(MPI_Comm comm, int node, int nnodes) {
  if (node != 0) {
    MPI_Wait(&send_request_, MPI_STATUS_IGNORE);
    return;
  }
  std::vector<std::string> records;
  for (int i = 1; i < nnodes; ++i) {
    MPI_Status status;
    MPI_Probe(MPI_ANY_SOURCE, kTagRecord, comm, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    std::string record(static_cast<std::size_t>(count), '\0');
    MPI_Recv(record.data(), count, MPI_CHAR, status.MPI_SOURCE, kTagRecord, comm,
             MPI_STATUS_IGNORE);
    records.push_back(std::move(record));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  received_ = std::move(records);
}

std::vector<std::string> RecordExchange::TakeReceived() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::move(received_);
}

}  // namespace bdmpi
