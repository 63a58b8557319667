// MPI-IO's file views (src/slave/io/view.*): where each data byte of a view
// lies in the file, the pieces an access is split into, the end of file as
// the view sees it, and the displacement rules. Compiled against our mpi.h.
#include "slave/io/view.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "common/error.h"

namespace bdmpi::io {
namespace {

using Piece = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;

std::vector<Piece> Pieces(const View& view, std::uint64_t stream, std::uint64_t bytes) {
  std::vector<Piece> pieces;
  view.ForEachPiece(stream, bytes, [&](std::uint64_t file, std::uint64_t length,
                                       std::uint64_t at) { pieces.emplace_back(file, length, at); });
  return pieces;
}

// count blocks of `block` ints, `stride` ints apart, committed.
MPI_Datatype IntVector(std::int64_t count, std::int64_t block, std::int64_t stride) {
  MPI_Datatype type = NewVectorType(count, block, stride * 4, MPI_INT, "test");
  CommitType(&type);
  return type;
}

TEST(IoViewTest, DefaultViewIsOneContiguousPiece) {
  View view;
  EXPECT_EQ(view.etype_size(), 1u);
  EXPECT_EQ(Pieces(view, 10, 1 << 20), (std::vector<Piece>{{10, 1 << 20, 10}}));
  EXPECT_EQ(view.FileOffset(12345), 12345u);
  EXPECT_EQ(view.StreamBytesBefore(777), 777u);
}

TEST(IoViewTest, ContiguousFiletypeMergesTiles) {
  MPI_Datatype ints = IntVector(1, 4, 4);  // 16 bytes, no gaps
  View view(100, MPI_INT, ints, true);
  EXPECT_EQ(Pieces(view, 8, 1000), (std::vector<Piece>{{108, 1000, 8}}));
  FreeType(&ints);
}

TEST(IoViewTest, InterleavedBlocks) {
  // 2 ints of every 6 (a rank's share of 3), from displacement 8.
  MPI_Datatype blocks = IntVector(1, 2, 6);
  MPI_Datatype filetype = NewResizedType(blocks, 0, 24);
  CommitType(&filetype);
  View view(8, MPI_INT, filetype, true);
  EXPECT_EQ(view.etype_size(), 4u);
  // Stream bytes 4..20: the second int of tile 0, tile 1, the first of tile 2.
  EXPECT_EQ(Pieces(view, 4, 16),
            (std::vector<Piece>{{12, 4, 4}, {32, 8, 8}, {56, 4, 16}}));
  EXPECT_EQ(view.FileOffset(9), 8u + 24 + 1);
  // A file of 8 + 24 + 6 bytes: one tile and 6 bytes of the next's data.
  EXPECT_EQ(view.StreamBytesBefore(8 + 24 + 6), 8u + 6);
  EXPECT_EQ(view.StreamBytesBefore(4), 0u);
  FreeType(&filetype);
  FreeType(&blocks);
}

int ErrorClassOf(MPI_Datatype etype, MPI_Datatype filetype, bool writable) {
  try {
    View view(0, etype, filetype, writable);
  } catch (const Error& error) {
    return error.error_class();
  }
  return MPI_SUCCESS;
}

TEST(IoViewTest, DisplacementRules) {
  // Decreasing: blocks at 12 then 0.
  TypeBlock decreasing[2] = {{1, MPI_INT, 12}, {1, MPI_INT, 0}};
  MPI_Datatype down = NewType(decreasing, false, "test");
  CommitType(&down);
  EXPECT_EQ(ErrorClassOf(MPI_INT, down, false), MPI_ERR_IO);
  // Overlapping: 3 ints at 0 and one at 4, fine for reading only.
  TypeBlock overlapping[2] = {{3, MPI_INT, 0}, {1, MPI_INT, 4}};
  MPI_Datatype overlap = NewType(overlapping, false, "test");
  CommitType(&overlap);
  EXPECT_EQ(ErrorClassOf(MPI_INT, overlap, true), MPI_ERR_IO);
  EXPECT_EQ(ErrorClassOf(MPI_INT, overlap, false), MPI_SUCCESS);
  // A filetype that is not whole etypes.
  EXPECT_EQ(ErrorClassOf(MPI_DOUBLE, MPI_INT, true), MPI_ERR_TYPE);
  FreeType(&overlap);
  FreeType(&down);
}

}  // namespace
}  // namespace bdmpi::io
