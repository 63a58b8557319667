#include "master/network/record_exchange.h"

#include <memory>
#include <thread>

#include "master/observe/job_recorder.h"

namespace bdmpi {
namespace {

// The only tag of the exchange's communicator.
constexpr int kTagRecord = 3;

}  // namespace

void RecordExchange::Start(MPI_Comm comm, int node) {
  comm_ = comm;
  // A peer that is gone must not make this a fatal error.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  node_ = node;
  MPI_Comm_size(comm_, &nnodes_);
  MPI_Barrier(comm_);
  std::int64_t node0_now = MonotonicNs();
  MPI_Bcast(&node0_now, 1, MPI_INT64_T, 0, comm_);
  std::int64_t now = MonotonicNs();
  clock_offset_ns_ = node == 0 ? 0 : node0_now - now;
  origin_ns_ = node0_now;
}

void RecordExchange::Post(std::string record) {
  std::lock_guard<std::mutex> lock(mutex_);
  posted_ = std::move(record);
  posted_any_ = true;
}

void RecordExchange::Send() {
  if (node_ == 0) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!posted_any_ || sent_) return;  // not recording, or SendAfterFailure sent it
    sending_ = std::make_unique<std::string>(std::move(posted_));
    sent_ = true;
  }
  MPI_Isend(sending_->data(), static_cast<int>(sending_->size()), MPI_CHAR, 0, kTagRecord,
            comm_, &send_request_);
}

bool RecordExchange::WaitSent(Deadline deadline) {
  if (send_request_ == MPI_REQUEST_NULL) return true;
  int done = 0;
  while (MPI_Test(&send_request_, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
    if (std::chrono::steady_clock::now() >= deadline) {
      MPI_Request_free(&send_request_);
      (void)sending_.release();
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
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

RecordExchange::Collected RecordExchange::Collect(Deadline deadline) {
  Collected collected;
  if (node_ != 0 || comm_ == MPI_COMM_NULL) return collected;
  std::vector<bool> arrived(static_cast<std::size_t>(nnodes_), false);
  arrived[0] = true;
  int waiting = nnodes_ - 1;
  // Polled, so that the deadline holds; a record found is received whole.
  while (waiting > 0 && std::chrono::steady_clock::now() < deadline) {
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
    collected.records.push_back(std::move(record));
  }
  for (int node = 1; node < nnodes_; ++node) {
    if (!arrived[static_cast<std::size_t>(node)]) collected.missing.push_back(node);
  }
  return collected;
}

}  // namespace bdmpi
