// A collective among masters in progress. Every algorithm is a non-blocking
// state machine: one network thread calls Progress on all operations in
// turn, and no operation blocks, sleeps or starts a thread.
#pragma once

#include <cstddef>
#include <functional>

namespace bdmpi::coll {

class Operation {
 public:
  virtual ~Operation() = default;

  // Tests the requests the operation waits for and advances as far as it can
  // without blocking; true once the operation has completed (and on every
  // later call). Nothing is posted before the first call, so that only the
  // thread that progresses operations ever touches the transport. Throws
  // what the transport throws; the operation is dead afterwards.
  //
  // Destroying an operation before it has completed leaves its requests
  // posted on the transport: only do it when the job is ending.
  virtual bool Progress() = 0;
};

// Every operation uses tags [tag, tag + kTagsPerOperation) of its transport.
// Operations that may be in progress at the same time on one transport need
// disjoint ranges; operations that follow each other in the same order on
// every peer (collectives on one communicator) may reuse a range.
inline constexpr int kTagsPerOperation = 4;

// inout[i] = in[i] op inout[i] over `bytes` bytes, a whole number of
// elements, as MPI_User_function does. For an operation that is not
// commutative, `in` always holds the operand of the lower ranks (MPI's
// order: a0 op a1 op ... op an-1).
using ReduceFn = std::function<void(const std::byte* in, std::byte* inout,
                                    std::size_t bytes)>;

struct Reduction {
  ReduceFn fn;
  // Chunks and blocks are cut only at multiples of this.
  std::size_t element_bytes = 1;
  // Algorithms that combine operands out of rank order (ring, chain in an
  // order other than 0..n-1) are correct only for commutative operations.
  bool commutative = true;
};

}  // namespace bdmpi::coll
