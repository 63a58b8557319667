// The slave's datatype table (src/slave/datatype/datatypes.cpp): the flattened
// layout of derived types, which are dense, what the master sees of them
// (base type and byte count), packing, and the life cycle of handles. Compiled against our public mpi.h.
#include "slave/datatype/datatypes.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "common/error.h"
#include "slave/datatype/darray.h"

namespace bdmpi {
namespace {

int ErrorClassOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    return error.error_class();
  }
  return MPI_SUCCESS;
}

MPI_Datatype Contiguous(std::int64_t count, MPI_Datatype type) {
  TypeBlock block{count, type, 0};
  return NewType({&block, 1}, false, "test");
}

TEST(SlaveDatatypesTest, PredefinedTypes) {
  const TypeInfo& type = LookupType(MPI_INT);
  EXPECT_TRUE(type.predefined);
  EXPECT_TRUE(type.committed);
  EXPECT_EQ(type.base, DatatypeId::kInt);
  EXPECT_EQ(type.size, sizeof(int));
  EXPECT_EQ(type.name, "MPI_INT");
  // Value-index pairs: the true extent ends with the int (Open MPI 4.1).
  EXPECT_EQ(LookupType(MPI_SHORT_INT).true_extent, 8u);
  EXPECT_EQ(LookupType(MPI_DOUBLE_INT).true_extent, 12u);
  EXPECT_EQ(LookupType(MPI_DOUBLE_INT).extent, 16u);
  EXPECT_EQ(LookupType(MPI_LONG_DOUBLE_INT).true_extent, 20u);
  EXPECT_EQ(ErrorClassOf([] { LookupType(MPI_DATATYPE_NULL); }), MPI_ERR_TYPE);
  EXPECT_EQ(ErrorClassOf([] { LookupType(MPI_COMM_WORLD); }), MPI_ERR_TYPE);
}

TEST(SlaveDatatypesTest, ContiguousOfContiguousIsItsBaseType) {
  MPI_Datatype t4 = Contiguous(4, MPI_DOUBLE);
  MPI_Datatype t8 = Contiguous(2, t4);
  const TypeInfo& type = LookupType(t8);
  EXPECT_FALSE(type.predefined);
  EXPECT_FALSE(type.committed);
  EXPECT_EQ(type.base, DatatypeId::kDouble);
  EXPECT_FALSE(type.mixed);
  EXPECT_EQ(type.count, 8u);
  EXPECT_EQ(type.size, 64u);
  EXPECT_EQ(type.extent, 64u);
  EXPECT_EQ(ReductionBase(t8), DatatypeId::kDouble);
  // Not committed: no communication with it.
  EXPECT_EQ(ErrorClassOf([&] { BufferBytes(1, t8); }), MPI_ERR_TYPE);
  CommitType(&t8);
  EXPECT_EQ(BufferBytes(3, t8), 192u);
  EXPECT_EQ(CountOf(192, t8), 3);
  EXPECT_EQ(CountOf(100, t8), MPI_UNDEFINED);
  EXPECT_EQ(ElementsOf(192, t8), 24);
  // Freeing the inner type leaves the outer one intact.
  FreeType(&t4);
  EXPECT_EQ(t4, MPI_DATATYPE_NULL);
  EXPECT_EQ(BufferBytes(1, t8), 64u);
  FreeType(&t8);
}

TEST(SlaveDatatypesTest, PairTypesKeepTheirExtent) {
  MPI_Datatype pairs = Contiguous(3, MPI_SHORT_INT);
  EXPECT_EQ(LookupType(pairs).size, 18u);
  EXPECT_EQ(LookupType(pairs).extent, 24u);
  EXPECT_EQ(LookupType(pairs).true_extent, 24u);
  EXPECT_EQ(ReductionBase(pairs), DatatypeId::kShortInt);
  FreeType(&pairs);
}

TEST(SlaveDatatypesTest, PairTypesTravelPackedLikeAStructOfTheSameSignature) {
  // MPICH's get_elements_pairtype: struct { double a; int b; double c; int
  // d; } sent, received as 2 x MPI_DOUBLE_INT. Both must give the same wire
  // bytes: the values and indices without the padding.
  struct DoubleInt {
    double value;
    int index;
  };
  const DoubleInt pairs[2] = {{1.5, 7}, {-2.25, 9}};
  const TypeInfo& pair = LookupType(MPI_DOUBLE_INT);
  EXPECT_EQ(pair.size, 12u);
  EXPECT_FALSE(pair.Dense());
  std::vector<TypeBlock> blocks = {{1, MPI_DOUBLE, 0}, {1, MPI_INT, 8},
                                   {1, MPI_DOUBLE, 16}, {1, MPI_INT, 24}};
  MPI_Datatype mixed = NewType(blocks, true, "test");
  const TypeInfo& split = LookupType(mixed);
  std::vector<std::byte> from_pairs(2 * pair.size), from_struct(split.size);
  ASSERT_EQ(from_pairs.size(), from_struct.size());
  PackElements(pairs, 2, pair, from_pairs.data());
  PackElements(pairs, 1, split, from_struct.data());
  EXPECT_EQ(from_pairs, from_struct);
  double second = 0;
  std::memcpy(&second, from_pairs.data() + 12, sizeof second);
  EXPECT_EQ(second, -2.25);
  // Back into pairs: the padding is left alone.
  DoubleInt out[2];
  std::memset(out, 0x5a, sizeof out);
  UnpackElements(from_struct.data(), from_struct.size(), out, 2, pair);
  EXPECT_EQ(out[1].value, -2.25);
  EXPECT_EQ(out[1].index, 9);
  EXPECT_EQ(CountOf(24, MPI_DOUBLE_INT), 2);
  EXPECT_EQ(ElementsOf(24, MPI_DOUBLE_INT), 4);
  EXPECT_EQ(ElementsOf(24, mixed), 4);
  // A pair cut after its value counts the value (as a struct would).
  EXPECT_EQ(ElementsOf(20, MPI_DOUBLE_INT), 3);
  EXPECT_EQ(ElementsOf(20, mixed), 3);
  EXPECT_EQ(ElementsOf(22, MPI_DOUBLE_INT), MPI_UNDEFINED);
  // The Fortran pairs and MPI_2INT have no padding and stay dense.
  EXPECT_TRUE(LookupType(MPI_2INT).Dense());
  EXPECT_TRUE(LookupType(MPI_2REAL).Dense());
  EXPECT_EQ(LookupType(MPI_SHORT_INT).size, 6u);
  EXPECT_EQ(LookupType(MPI_LONG_DOUBLE_INT).size, sizeof(long double) + sizeof(int));
  FreeType(&mixed);
}

TEST(SlaveDatatypesTest, StructsArePaddedToTheirAlignment) {
  // struct { double d; int i; }: MPI-3.1 4.1.6 pads the extent to 16 so
  // that count > 1 walks a C array of them.
  std::vector<TypeBlock> blocks = {{1, MPI_DOUBLE, 0}, {1, MPI_INT, 8}};
  MPI_Datatype mixed = NewType(blocks, true, "test");
  const TypeInfo& type = LookupType(mixed);
  EXPECT_TRUE(type.mixed);
  EXPECT_EQ(type.size, 12u);
  EXPECT_EQ(type.extent, 16u);
  EXPECT_EQ(type.true_extent, 12u);
  EXPECT_EQ(type.size, 12u);
  EXPECT_FALSE(type.Dense());
  EXPECT_EQ(ErrorClassOf([&] { ReductionBase(mixed); }), MPI_ERR_OP);
  EXPECT_EQ(ElementsOf(24, mixed), 4);
  EXPECT_EQ(ElementsOf(20, mixed), 3);
  EXPECT_EQ(ElementsOf(10, mixed), MPI_UNDEFINED);
  FreeType(&mixed);
}

TEST(SlaveDatatypesTest, GapsArePackedAndUnpacked) {
  std::vector<TypeBlock> hole = {{1, MPI_INT, 0}, {1, MPI_INT, 8}};
  MPI_Datatype gappy = NewType(hole, false, "test");
  CommitType(&gappy);
  const TypeInfo& type = LookupType(gappy);
  EXPECT_FALSE(type.Dense());
  EXPECT_EQ(type.extent, 12u);
  EXPECT_EQ(type.count, 2u);
  EXPECT_EQ(WireBytes(2, gappy), 16u);
  EXPECT_EQ(ErrorClassOf([&] { BufferBytes(1, gappy); }), MPI_ERR_TYPE);
  int in[6] = {1, 2, 3, 4, 5, 6};
  int packed[4] = {};
  PackElements(in, 2, type, reinterpret_cast<std::byte*>(packed));
  EXPECT_EQ(std::vector<int>(packed, packed + 4), (std::vector<int>{1, 3, 4, 6}));
  int out[6] = {0, -1, 0, 0, -1, 0};
  // Three of the four ints arrived: the fourth and the gaps stay untouched.
  UnpackElements(reinterpret_cast<std::byte*>(packed), 12, out, 2, type);
  EXPECT_EQ(std::vector<int>(out, out + 6), (std::vector<int>{1, -1, 3, 4, -1, 0}));
  FreeType(&gappy);
  // A vector with stride: three blocks of two ints, 8 ints apart.
  MPI_Datatype vector = NewVectorType(3, 2, 32, MPI_INT, "test");
  EXPECT_EQ(LookupType(vector).count, 6u);
  EXPECT_EQ(LookupType(vector).extent, 72u);
  EXPECT_EQ(LookupType(vector).runs.size(), 3u);
  FreeType(&vector);
  // Empty blocks take no part in the bounds.
  std::vector<TypeBlock> empty_anywhere = {{0, MPI_INT, 100}, {2, MPI_INT, 0}};
  MPI_Datatype ok = NewType(empty_anywhere, false, "test");
  EXPECT_EQ(LookupType(ok).extent, 8u);
  EXPECT_TRUE(LookupType(ok).Dense());
  FreeType(&ok);
}

// Types of many blocks are kept as repeated runs, not one run per block:
// a vector of 2^31 + 5 blocks is one run, a vector of vectors of a type
// with gaps two levels, and both pack, unpack and size like their
// expansion.
TEST(SlaveDatatypesTest, ManyBlocksAreOneRepeatedRun) {
  const std::int64_t blocks = (std::int64_t{1} << 31) + 5;
  MPI_Datatype huge = NewVectorType(blocks, 1, 8, MPI_INT, "test");
  const TypeInfo& big = LookupType(huge);
  ASSERT_EQ(big.runs.size(), 1u);
  EXPECT_EQ(big.runs[0].count, static_cast<std::uint64_t>(blocks));
  EXPECT_EQ(big.runs[0].stride, 8);
  EXPECT_EQ(big.size, static_cast<std::uint64_t>(blocks) * 4);
  EXPECT_EQ(big.extent, (blocks - 1) * 8 + 4);
  EXPECT_EQ(big.true_extent, static_cast<std::uint64_t>(big.extent));
  EXPECT_FALSE(big.Dense());
  FreeType(&huge);

  // { int, gap, int } of extent 12, 100 of them at a stride of 16 bytes,
  // 3 such vectors 2000 bytes apart.
  std::vector<TypeBlock> hole = {{1, MPI_INT, 0}, {1, MPI_INT, 8}};
  MPI_Datatype gappy = NewType(hole, false, "test");
  MPI_Datatype inner = NewVectorType(100, 1, 16, gappy, "test");
  MPI_Datatype outer = NewVectorType(3, 1, 2000, inner, "test");
  const TypeInfo& type = LookupType(outer);
  // Three copies (few: expanded) of the inner vector's one run, which
  // nests the gappy type's two.
  ASSERT_EQ(type.runs.size(), 3u);
  EXPECT_EQ(type.runs[0].count, 100u);
  ASSERT_NE(type.runs[0].inner, nullptr);
  EXPECT_EQ(type.runs[0].inner->size(), 2u);
  EXPECT_EQ(type.size, 3u * 100u * 8u);
  const std::int64_t extent = type.extent;
  EXPECT_EQ(extent, 2 * 2000 + 99 * 16 + 12);
  std::vector<int> memory(static_cast<std::size_t>(extent) / 4 * 2);
  for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<int>(i);
  std::vector<int> packed(3 * 100 * 2 * 2);
  PackElements(memory.data(), 2, type, reinterpret_cast<std::byte*>(packed.data()));
  std::vector<int> expected;
  for (std::int64_t element = 0; element < 2; ++element)
    for (int v = 0; v < 3; ++v)
      for (int b = 0; b < 100; ++b)
        for (int at : {0, 8}) {
          const std::int64_t byte = element * extent + v * 2000 + b * 16 + at;
          expected.push_back(static_cast<int>(byte / 4));
        }
  EXPECT_EQ(packed, expected);
  std::vector<int> back(memory.size(), -1);
  UnpackElements(reinterpret_cast<std::byte*>(packed.data()), packed.size() * 4, back.data(), 2,
                 type);
  for (int value : expected) EXPECT_EQ(back[static_cast<std::size_t>(value)], value);
  EXPECT_EQ(FlatRuns(type).size(), 3u * 100u * 2u);
  FreeType(&outer);
  FreeType(&inner);
  FreeType(&gappy);
}

TEST(SlaveDatatypesTest, DarrayOwnedIndices) {
  auto blocks = [](int size, int distrib, int darg, int nprocs, int coord) {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (const IndexBlock& b : OwnedIndices(size, distrib, darg, nprocs, coord))
      out.emplace_back(b.start, b.length);
    return out;
  };
  using Blocks = std::vector<std::pair<std::int64_t, std::int64_t>>;
  // 10 over 4 by default blocks of 3: 3, 3, 3, 1.
  EXPECT_EQ(blocks(10, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, 4, 3), (Blocks{{9, 1}}));
  EXPECT_EQ(blocks(10, MPI_DISTRIBUTE_BLOCK, 5, 4, 2), Blocks{});  // nothing left
  EXPECT_EQ(ErrorClassOf([&] { blocks(10, MPI_DISTRIBUTE_BLOCK, 2, 4, 0); }), MPI_ERR_ARG);
  // Cyclic(2) of 11 over 3: rank 1 owns 2-3 and 8-9.
  EXPECT_EQ(blocks(11, MPI_DISTRIBUTE_CYCLIC, 2, 3, 1), (Blocks{{2, 2}, {8, 2}}));
  EXPECT_EQ(blocks(11, MPI_DISTRIBUTE_CYCLIC, 2, 3, 2), (Blocks{{4, 2}, {10, 1}}));
  EXPECT_EQ(blocks(5, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 2, 0),
            (Blocks{{0, 1}, {2, 1}, {4, 1}}));
  EXPECT_EQ(blocks(7, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_DFLT_DARG, 1, 0), (Blocks{{0, 7}}));
  EXPECT_EQ(ErrorClassOf([&] { blocks(7, MPI_DISTRIBUTE_NONE, 0, 2, 0); }), MPI_ERR_ARG);
}

TEST(SlaveDatatypesTest, DarrayOfAGridInBothOrders) {
  // A 4 x 6 int array on a 2 x 2 grid, blocks: rank 1 (grid row 0, column
  // 1) owns rows 0-1, columns 3-5 in C order; in Fortran order (column
  // major, 4 fastest) it owns indices 0-1 of the first dimension and 3-5 of
  // the second, i.e. elements 12-13, 16-17, 20-21.
  const int gsizes[2] = {4, 6}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
  const int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
  const int psizes[2] = {2, 2};
  MPI_Datatype c_order = NewDarrayType(4, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT);
  const TypeInfo& c = LookupType(c_order);
  EXPECT_EQ(c.lb, 0);
  EXPECT_EQ(c.extent, 24 * sizeof(int));
  EXPECT_EQ(c.size, 6 * sizeof(int));
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0].offset, 3 * 4);
  EXPECT_EQ(c.runs[1].offset, 9 * 4);
  EXPECT_EQ(c.runs[1].length, 3 * 4u);
  MPI_Datatype f_order =
      NewDarrayType(4, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, MPI_INT);
  const TypeInfo& f = LookupType(f_order);
  ASSERT_EQ(f.runs.size(), 3u);
  EXPECT_EQ(f.runs[0].offset, 12 * 4);
  EXPECT_EQ(f.runs[2].offset, 20 * 4);
  EXPECT_EQ(f.runs[2].length, 2 * 4u);
  EXPECT_EQ(f.extent, 24 * sizeof(int));
  FreeType(&c_order);
  FreeType(&f_order);
}

TEST(SlaveDatatypesTest, ResizedMovesTheBounds) {
  MPI_Datatype resized = NewResizedType(MPI_INT, -4, 16);
  const TypeInfo& type = LookupType(resized);
  EXPECT_EQ(type.lb, -4);
  EXPECT_EQ(type.extent, 16);
  EXPECT_EQ(type.true_lb, 0);
  EXPECT_EQ(type.true_extent, 4u);
  EXPECT_FALSE(type.Dense());
  // A resized type's bounds are markers: they win over the char at 20
  // (MPI-3.1 4.1.6/4.1.7), and the struct gets no padding.
  std::vector<TypeBlock> blocks = {{1, resized, 0}, {1, MPI_CHAR, 20}};
  MPI_Datatype outer = NewType(blocks, true, "test");
  EXPECT_EQ(LookupType(outer).lb, -4);
  EXPECT_EQ(LookupType(outer).extent, 16);
  FreeType(&outer);
  FreeType(&resized);
}

TEST(SlaveDatatypesTest, BoundMarkersAndNegativeExtents) {
  // { (LB,-3), 4*(BYTE,0), (UB,6) } as MPI-1 builds it.
  std::vector<TypeBlock> marked = {{1, MPI_LB, -3}, {4, MPI_BYTE, 0}, {1, MPI_UB, 6}};
  MPI_Datatype evil = NewType(marked, true, "test");
  EXPECT_EQ(LookupType(evil).lb, -3);
  EXPECT_EQ(LookupType(evil).extent, 9);
  EXPECT_EQ(LookupType(evil).size, 4u);
  EXPECT_EQ(LookupType(evil).true_lb, 0);
  // Markers stick: 3 of them span lb -3 .. ub 24.
  MPI_Datatype three = Contiguous(3, evil);
  EXPECT_EQ(LookupType(three).lb, -3);
  EXPECT_EQ(LookupType(three).extent, 27);
  // Resized to lb 6, extent -9; 3 of them: lb -12, extent 9, true lb -18
  // (MPICH's datatype/lbub).
  MPI_Datatype bytes = Contiguous(4, MPI_BYTE);
  MPI_Datatype backwards = NewResizedType(bytes, 6, -9);
  MPI_Datatype walk = Contiguous(3, backwards);
  const TypeInfo& type = LookupType(walk);
  EXPECT_EQ(type.lb, -12);
  EXPECT_EQ(type.extent, 9);
  EXPECT_EQ(type.true_lb, -18);
  EXPECT_EQ(type.true_extent, 22u);
  // Packed in type-map order: element 0 at 0, element 1 at -9, 2 at -18.
  unsigned char memory[40];
  for (int i = 0; i < 40; ++i) memory[i] = static_cast<unsigned char>(i);
  std::byte packed[12];
  PackElements(memory + 20, 1, type, packed);
  EXPECT_EQ(std::to_integer<int>(packed[0]), 20);
  EXPECT_EQ(std::to_integer<int>(packed[4]), 11);
  EXPECT_EQ(std::to_integer<int>(packed[8]), 2);
  for (MPI_Datatype* t : {&evil, &three, &bytes, &backwards, &walk}) FreeType(t);
}

TEST(SlaveDatatypesTest, ErrorsAndHandleReuse) {
  MPI_Datatype predefined = MPI_INT;
  EXPECT_EQ(ErrorClassOf([&] { FreeType(&predefined); }), MPI_ERR_TYPE);
  EXPECT_EQ(predefined, MPI_INT);
  EXPECT_EQ(ErrorClassOf([] { Contiguous(-1, MPI_INT); }), MPI_ERR_COUNT);
  EXPECT_EQ(ErrorClassOf([] { BufferBytes(-1, MPI_INT); }), MPI_ERR_COUNT);
  MPI_Datatype a = Contiguous(2, MPI_INT);
  MPI_Datatype freed = a;
  FreeType(&a);
  EXPECT_EQ(ErrorClassOf([&] { LookupType(freed); }), MPI_ERR_TYPE);
  EXPECT_EQ(ErrorClassOf([&] { FreeType(&freed); }), MPI_ERR_TYPE);
  // Dup keeps the committed state and not the name.
  MPI_Datatype b = Contiguous(2, MPI_INT);
  SetTypeName(b, "b");
  CommitType(&b);
  MPI_Datatype c = DupType(b);
  EXPECT_TRUE(LookupType(c).committed);
  EXPECT_EQ(LookupType(c).name, "");
  // Predefined types may be renamed too (MPI-3.1 6.8).
  SetTypeName(MPI_SHORT, "short");
  EXPECT_EQ(LookupType(MPI_SHORT).name, "short");
  SetTypeName(MPI_SHORT, "MPI_SHORT");
  FreeType(&b);
  FreeType(&c);
}

}  // namespace
}  // namespace bdmpi
