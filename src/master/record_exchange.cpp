#include "master/record_exchange.h"

#include <thread>

#include "master/job_recorder.h"

namespace bdmpi {
namespace {

// A tag of the control communicator that ProgressControl never probes.
constexpr int kTagRecord = 3;

}  // namespace

void RecordExchange::AlignClocks(MPI_Comm comm, int node) {
  comm_ = comm;
  node_ = node;
  MPI_Comm_size(comm, &nnodes_);
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
    if (sent_) return;  // SendAfterFailure has sent it
    sending_.swap(posted_);
    sent_ = true;
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

void RecordExchange::SendAfterFailure(std::string record, Deadline deadline) {
  if (node_ == 0 || comm_ == MPI_COMM_NULL) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // On its way since the normal end: the network thread owns that send
    // and waits for it as long as the process lives.
    if (sent_) return;
    sent_ = true;
  }
  // A peer that is gone must not make this a fatal error.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  // Owned by a pointer that is released if node 0 does not take the record
  // in time: MPI may still read the buffer until the process ends.
  auto buffer = std::make_unique<std::string>(std::move(record));
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Isend(buffer->data(), static_cast<int>(buffer->size()), MPI_CHAR, 0, kTagRecord,
                comm_, &request) != MPI_SUCCESS)
    return;
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
    if (std::chrono::steady_clock::now() >= deadline) {
      (void)buffer.release();
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::vector<int> RecordExchange::ReceiveAfterFailure(Deadline deadline) {
  std::vector<int> missing;
  if (node_ != 0 || comm_ == MPI_COMM_NULL) return missing;
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  std::vector<std::string> records;
  std::vector<bool> arrived(static_cast<std::size_t>(nnodes_), false);
  arrived[0] = true;
  int waiting = nnodes_ - 1;
  while (waiting > 0 && std::chrono::steady_clock::now() < deadline) {
    // A matched probe: the network thread may probe the same tag.
    int found = 0;
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status status;
    if (MPI_Improbe(MPI_ANY_SOURCE, kTagRecord, comm_, &found, &message, &status) !=
        MPI_SUCCESS)
      break;
    if (!found) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    std::string record(static_cast<std::size_t>(count), '\0');
    if (MPI_Mrecv(record.data(), count, MPI_CHAR, &message, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      break;
    auto from = static_cast<std::size_t>(status.MPI_SOURCE);
    if (arrived[from]) continue;  // one record per node
    arrived[from] = true;
    --waiting;
    records.push_back(std::move(record));
  }
  for (int node = 1; node < nnodes_; ++node) {
    if (!arrived[static_cast<std::size_t>(node)]) missing.push_back(node);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  received_ = std::move(records);
  return missing;
}

std::vector<std::string> RecordExchange::TakeReceived() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::move(received_);
}

}  // namespace bdmpi
