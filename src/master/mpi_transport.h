// coll::Transport over Open MPI: how the collective algorithms of
// src/collectives talk among the masters. Used only by the network thread.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <unordered_map>

#include "collectives/transport.h"

namespace bdmpi {

class MpiTransport : public coll::Transport {
 public:
  // Peers are the ranks of `comm` (the masters of one communicator).
  explicit MpiTransport(MPI_Comm comm);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  coll::RequestId Isend(int peer, int tag, const std::byte* data,
                        std::size_t bytes) override;
  coll::RequestId Irecv(int peer, int tag, std::byte* data,
                        std::size_t bytes) override;
  bool Test(coll::RequestId request) override;

 private:
  struct Pending {
    MPI_Request request;
    std::size_t expected;  // receives: the exact size the algorithm wants
    bool is_recv;
  };
  coll::RequestId Add(MPI_Request request, std::size_t bytes, bool is_recv);

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  coll::RequestId next_id_ = 0;
  std::unordered_map<coll::RequestId, Pending> pending_;
};

}  // namespace bdmpi
