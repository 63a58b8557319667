#include "slave/datatype/darray.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "slave/datatype/datatypes.h"

namespace bdmpi {
namespace {

[[noreturn]] void BadArgument(const std::string& what) {
  throw Error(kErrArg, "MPI_Type_create_darray: " + what);
}

}  // namespace

std::vector<IndexBlock> OwnedIndices(int size, int distrib, int darg, int nprocs, int coord) {
  if (size <= 0 || nprocs <= 0 || coord < 0 || coord >= nprocs)
    BadArgument("each dimension needs a positive size and process count");
  switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
      if (nprocs != 1) BadArgument("a dimension of MPI_DISTRIBUTE_NONE needs psizes 1");
      return {{0, size}};
    case MPI_DISTRIBUTE_BLOCK: {
      // Default: ceil(size / nprocs) elements per process.
      std::int64_t block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (size + nprocs - 1) / nprocs : darg;
      if (block <= 0 || block * nprocs < size)
        BadArgument("a block distribution needs darg * psizes >= gsizes");
      std::int64_t start = block * coord;
      std::int64_t end = std::min<std::int64_t>(start + block, size);
      if (start >= end) return {};
      return {{start, end - start}};
    }
    case MPI_DISTRIBUTE_CYCLIC: {
      std::int64_t block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
      if (block <= 0) BadArgument("a cyclic distribution needs a positive darg");
      std::vector<IndexBlock> owned;
      for (std::int64_t start = block * coord; start < size; start += block * nprocs)
        owned.push_back({start, std::min<std::int64_t>(block, size - start)});
      return owned;
    }
    default:
      BadArgument("distribs must be MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE");
  }
}

MPI_Datatype NewDarrayType(int size, int rank, std::span<const int> gsizes,
                           std::span<const int> distribs, std::span<const int> dargs,
                           std::span<const int> psizes, int order, MPI_Datatype oldtype) {
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    BadArgument("order must be MPI_ORDER_C or MPI_ORDER_FORTRAN");
  if (gsizes.empty()) BadArgument("ndims must be positive");
  std::int64_t grid = 1;
  for (int p : psizes) grid *= p;
  if (grid != size || rank < 0 || rank >= size)
    BadArgument("the product of psizes must be size, and 0 <= rank < size");
  const std::size_t ndims = gsizes.size();
  // The process grid is row-major whatever the array order (MPI-3.1 4.1.4).
  std::vector<int> coords(ndims);
  for (std::size_t d = ndims, rest = static_cast<std::size_t>(rank); d-- > 0;) {
    coords[d] = static_cast<int>(rest % static_cast<std::size_t>(psizes[d]));
    rest /= static_cast<std::size_t>(psizes[d]);
  }
  // Innermost dimension first, each one's owned indices of the type of the
  // dimensions inside it, resized to a whole slice of the global array so
  // that consecutive indices lie one slice apart.
  auto stride = static_cast<std::int64_t>(LookupType(oldtype).extent);
  MPI_Datatype inner = oldtype;
  bool owned = false;  // inner is one of ours, to free once wrapped
  for (std::size_t i = 0; i < ndims; ++i) {
    std::size_t d = order == MPI_ORDER_C ? ndims - 1 - i : i;
    std::vector<TypeBlock> blocks;
    for (const IndexBlock& b : OwnedIndices(gsizes[d], distribs[d], dargs[d], psizes[d], coords[d]))
      blocks.push_back({b.length, inner, b.start * stride});
    MPI_Datatype placed = NewType(blocks, false, "MPI_Type_create_darray");
    if (owned) FreeType(&inner);
    stride *= gsizes[d];
    inner = NewResizedType(placed, 0, stride);
    FreeType(&placed);
    owned = true;
  }
  return inner;
}

}  // namespace bdmpi
