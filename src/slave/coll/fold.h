// Contributions to a reduction folded strictly in rank order,
// x_0 op x_1 op ... (the order MPI defines for non-commutative operations),
// as wire bytes, holding an accumulator and one incoming contribution: the
// fold that the schedules of nbc_reduce.cpp and nbc_inter.cpp share.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/protocol.h"
#include "slave/coll/coll_p2p.h"
#include "slave/coll/nbc.h"
#include "slave/p2p/wire_data.h"

namespace bdmpi {

// The contributions folded so far, in rank order.
class Fold {
 public:
  using Bytes = std::vector<std::byte>;

  Fold(const CheckedOp& op, MPI_Datatype datatype, int count)
      : op_(op), datatype_(datatype), count_(count), bytes_(WireBytes(count, datatype)) {}

  std::uint64_t bytes() const { return bytes_; }
  bool empty() const { return empty_; }
  const Bytes& result() const { return acc_; }

  void Add(const Bytes& contribution) {
    incoming_ = contribution;
    FoldIncoming();
  }

  // Folds the contribution of rank `source` that the master's reply holds.
  void Receive(const ReplyMsg& reply, int source);

 private:
  // acc = acc op incoming: the operation's inout is the later operand.
  void FoldIncoming();

  CheckedOp op_;
  MPI_Datatype datatype_;
  int count_;
  std::uint64_t bytes_;
  Bytes acc_, incoming_;
  bool empty_ = true;
};

// Adds the steps that receive `count` elements (wire bytes) from each of
// `sources` (ranks of the schedule's communicator), fold them in that
// order and hand the result to `use`.
void FoldReceived(Schedule& schedule, int tag, const std::vector<int>& sources,
                  const CheckedOp& op, MPI_Datatype datatype, int count,
                  std::function<void(const std::vector<std::byte>&)> use);

}  // namespace bdmpi
