// Where each rank's block of a collective's buffer is, shared by the
// data-moving plans of intra- and intercommunicators (nbc_move.cpp,
// nbc_inter.cpp).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bdmpi {

// `count` elements of `type` at `offset` bytes.
struct Block {
  int count = 0;
  std::int64_t offset = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
};
using Blocks = std::vector<Block>;

inline void* At(void* buffer, const Block& block) {
  return static_cast<std::byte*>(buffer) + block.offset;
}
inline const void* At(const void* buffer, const Block& block) {
  return static_cast<const std::byte*>(buffer) + block.offset;
}

}  // namespace bdmpi
