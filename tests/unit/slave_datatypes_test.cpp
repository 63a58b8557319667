// The slave's datatype table (src/slave/datatypes.cpp): which derived types
// are dense, what the master sees of them (base type and byte count), and
// the life cycle of handles. Compiled against our public mpi.h.
#include "slave/datatypes.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "common/error.h"

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
  return NewDenseType({&block, 1}, "test");
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

TEST(SlaveDatatypesTest, DenseBlocksOfMixedTypesAreBytes) {
  std::vector<TypeBlock> blocks = {{1, MPI_DOUBLE, 0}, {2, MPI_INT, 8}};
  MPI_Datatype mixed = NewDenseType(blocks, "test");
  const TypeInfo& type = LookupType(mixed);
  EXPECT_TRUE(type.mixed);
  EXPECT_EQ(type.base, DatatypeId::kByte);
  EXPECT_EQ(type.extent, 16u);
  EXPECT_EQ(type.count, 16u);
  EXPECT_EQ(ErrorClassOf([&] { ReductionBase(mixed); }), MPI_ERR_OP);
  FreeType(&mixed);
}

TEST(SlaveDatatypesTest, GapsAndOverlapsAreRefused) {
  std::vector<TypeBlock> hole = {{1, MPI_INT, 0}, {1, MPI_INT, 8}};
  EXPECT_EQ(ErrorClassOf([&] { NewDenseType(hole, "test"); }), MPI_ERR_TYPE);
  std::vector<TypeBlock> overlap = {{2, MPI_INT, 0}, {1, MPI_INT, 4}};
  EXPECT_EQ(ErrorClassOf([&] { NewDenseType(overlap, "test"); }), MPI_ERR_TYPE);
  std::vector<TypeBlock> offset = {{1, MPI_INT, 4}};
  EXPECT_EQ(ErrorClassOf([&] { NewDenseType(offset, "test"); }), MPI_ERR_TYPE);
  EXPECT_EQ(ErrorClassOf([] { NewVectorType(3, 1, 8, MPI_INT, "test"); }), MPI_ERR_TYPE);
  // Empty blocks may be anywhere.
  std::vector<TypeBlock> empty_anywhere = {{0, MPI_INT, 100}, {2, MPI_INT, 0}};
  MPI_Datatype ok = NewDenseType(empty_anywhere, "test");
  EXPECT_EQ(LookupType(ok).extent, 8u);
  FreeType(&ok);
  MPI_Datatype vector = NewVectorType(3, 2, 8, MPI_INT, "test");
  EXPECT_EQ(LookupType(vector).count, 6u);
  FreeType(&vector);
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
  FreeType(&b);
  FreeType(&c);
}

}  // namespace
}  // namespace bdmpi
