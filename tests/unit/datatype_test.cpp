// The predefined datatype table against the values Open MPI 4.1.4 reports on
// x86-64 Linux (MPI_Type_size, MPI_Type_get_extent), written out as numbers
// rather than sizeof expressions so that a wrong C type in the table shows.
#include "common/datatype.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>

namespace bdmpi {
namespace {

// The numbers below are those of an LP64 target with a 4-byte wchar_t and a
// 16-byte long double (x86-64 and aarch64 Linux).
static_assert(sizeof(long) == 8 && sizeof(wchar_t) == 4 &&
              sizeof(long double) == 16);

struct Expected {
  DatatypeId id;
  const char* name;
  std::uint32_t size;
  std::uint32_t extent;
  TypeClass type_class;
};

using D = DatatypeId;
using C = TypeClass;

constexpr Expected kExpected[] = {
    {D::kChar, "MPI_CHAR", 1, 1, C::kOther},
    {D::kSignedChar, "MPI_SIGNED_CHAR", 1, 1, C::kInteger},
    {D::kUnsignedChar, "MPI_UNSIGNED_CHAR", 1, 1, C::kInteger},
    {D::kByte, "MPI_BYTE", 1, 1, C::kByte},
    {D::kWchar, "MPI_WCHAR", 4, 4, C::kOther},
    {D::kShort, "MPI_SHORT", 2, 2, C::kInteger},
    {D::kUnsignedShort, "MPI_UNSIGNED_SHORT", 2, 2, C::kInteger},
    {D::kInt, "MPI_INT", 4, 4, C::kInteger},
    {D::kUnsigned, "MPI_UNSIGNED", 4, 4, C::kInteger},
    {D::kLong, "MPI_LONG", 8, 8, C::kInteger},
    {D::kUnsignedLong, "MPI_UNSIGNED_LONG", 8, 8, C::kInteger},
    {D::kLongLong, "MPI_LONG_LONG_INT", 8, 8, C::kInteger},
    {D::kUnsignedLongLong, "MPI_UNSIGNED_LONG_LONG", 8, 8, C::kInteger},
    {D::kFloat, "MPI_FLOAT", 4, 4, C::kFloating},
    {D::kDouble, "MPI_DOUBLE", 8, 8, C::kFloating},
    {D::kLongDouble, "MPI_LONG_DOUBLE", 16, 16, C::kFloating},
    {D::kInt8, "MPI_INT8_T", 1, 1, C::kInteger},
    {D::kInt16, "MPI_INT16_T", 2, 2, C::kInteger},
    {D::kInt32, "MPI_INT32_T", 4, 4, C::kInteger},
    {D::kInt64, "MPI_INT64_T", 8, 8, C::kInteger},
    {D::kUint8, "MPI_UINT8_T", 1, 1, C::kInteger},
    {D::kUint16, "MPI_UINT16_T", 2, 2, C::kInteger},
    {D::kUint32, "MPI_UINT32_T", 4, 4, C::kInteger},
    {D::kUint64, "MPI_UINT64_T", 8, 8, C::kInteger},
    {D::kCBool, "MPI_C_BOOL", 1, 1, C::kLogical},
    {D::kCFloatComplex, "MPI_C_FLOAT_COMPLEX", 8, 8, C::kComplex},
    {D::kCDoubleComplex, "MPI_C_DOUBLE_COMPLEX", 16, 16, C::kComplex},
    {D::kCLongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX", 32, 32, C::kComplex},
    {D::kAint, "MPI_AINT", 8, 8, C::kInteger},
    {D::kOffset, "MPI_OFFSET", 8, 8, C::kInteger},
    {D::kCount, "MPI_COUNT", 8, 8, C::kInteger},
    {D::kPacked, "MPI_PACKED", 1, 1, C::kOther},
    // Pairs: size without padding, extent = sizeof(struct {V; int;}).
    {D::kFloatInt, "MPI_FLOAT_INT", 8, 8, C::kPair},
    {D::kDoubleInt, "MPI_DOUBLE_INT", 12, 16, C::kPair},
    {D::kLongInt, "MPI_LONG_INT", 12, 16, C::kPair},
    {D::k2Int, "MPI_2INT", 8, 8, C::kPair},
    {D::kShortInt, "MPI_SHORT_INT", 6, 8, C::kPair},
    {D::kLongDoubleInt, "MPI_LONG_DOUBLE_INT", 20, 32, C::kPair},
    {D::kCxxBool, "MPI_CXX_BOOL", 1, 1, C::kLogical},
    {D::kCxxFloatComplex, "MPI_CXX_FLOAT_COMPLEX", 8, 8, C::kComplex},
    {D::kCxxDoubleComplex, "MPI_CXX_DOUBLE_COMPLEX", 16, 16, C::kComplex},
    {D::kCxxLongDoubleComplex, "MPI_CXX_LONG_DOUBLE_COMPLEX", 32, 32,
     C::kComplex},
    // Fortran-named types: the sizes of Open MPI 4.1's (gfortran's).
    {D::kCharacter, "MPI_CHARACTER", 1, 1, C::kOther},
    {D::kLogical, "MPI_LOGICAL", 4, 4, C::kLogical},
    {D::kInteger, "MPI_INTEGER", 4, 4, C::kInteger},
    {D::kReal, "MPI_REAL", 4, 4, C::kFloating},
    {D::kDoublePrecision, "MPI_DOUBLE_PRECISION", 8, 8, C::kFloating},
    {D::kComplex, "MPI_COMPLEX", 8, 8, C::kComplex},
    {D::kDoubleComplex, "MPI_DOUBLE_COMPLEX", 16, 16, C::kComplex},
    {D::kInteger1, "MPI_INTEGER1", 1, 1, C::kInteger},
    {D::kInteger2, "MPI_INTEGER2", 2, 2, C::kInteger},
    {D::kInteger4, "MPI_INTEGER4", 4, 4, C::kInteger},
    {D::kInteger8, "MPI_INTEGER8", 8, 8, C::kInteger},
    {D::kReal4, "MPI_REAL4", 4, 4, C::kFloating},
    {D::kReal8, "MPI_REAL8", 8, 8, C::kFloating},
    {D::kComplex8, "MPI_COMPLEX8", 8, 8, C::kComplex},
    {D::kComplex16, "MPI_COMPLEX16", 16, 16, C::kComplex},
    {D::kLogical1, "MPI_LOGICAL1", 1, 1, C::kLogical},
    {D::kLogical2, "MPI_LOGICAL2", 2, 2, C::kLogical},
    {D::kLogical4, "MPI_LOGICAL4", 4, 4, C::kLogical},
    {D::kLogical8, "MPI_LOGICAL8", 8, 8, C::kLogical},
    {D::k2Integer, "MPI_2INTEGER", 8, 8, C::kPair},
    {D::k2Real, "MPI_2REAL", 8, 8, C::kPair},
    {D::k2DoublePrecision, "MPI_2DOUBLE_PRECISION", 16, 16, C::kPair},
    {D::kCComplex, "MPI_C_COMPLEX", 8, 8, C::kComplex},
    {D::kLb, "MPI_LB", 0, 0, C::kOther},
    {D::kUb, "MPI_UB", 0, 0, C::kOther},
    {D::kReal16, "MPI_REAL16", 16, 16, C::kFloating},
    {D::kComplex32, "MPI_COMPLEX32", 32, 32, C::kComplex},
    {D::kInteger16, "MPI_INTEGER16", 16, 16, C::kInteger},
};

// Every id between kNull and kPredefinedEnd appears exactly once above.
TEST(DatatypeTest, ExpectationsCoverEveryPredefinedId) {
  std::set<int> ids;
  for (const Expected& e : kExpected) ids.insert(static_cast<int>(e.id));
  EXPECT_EQ(ids.size(), std::size(kExpected));
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(D::kPredefinedEnd) - 1);
  EXPECT_EQ(*ids.begin(), 1);
  EXPECT_EQ(*ids.rbegin(), static_cast<int>(D::kPredefinedEnd) - 1);
}

TEST(DatatypeTest, SizeExtentClassAndNameOfEveryPredefinedType) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    const DatatypeInfo* info = FindPredefinedDatatype(e.id);
    ASSERT_NE(info, nullptr);
    EXPECT_STREQ(info->name, e.name);
    EXPECT_EQ(info->size, e.size);
    EXPECT_EQ(info->extent, e.extent);
    EXPECT_EQ(info->type_class, e.type_class);
  }
}

TEST(DatatypeTest, NullAndOutOfRangeIdsHaveNoEntry) {
  EXPECT_EQ(FindPredefinedDatatype(D::kNull), nullptr);
  EXPECT_EQ(FindPredefinedDatatype(D::kPredefinedEnd), nullptr);
  EXPECT_EQ(FindPredefinedDatatype(static_cast<D>(0x7fff)), nullptr);
  EXPECT_EQ(FindPredefinedDatatype(static_cast<D>(0xffff)), nullptr);
}

// The extents must match the C objects that user buffers hold, since the
// master walks buffers with them.
TEST(DatatypeTest, ExtentsMatchTheHostCLayout) {
  struct FloatInt {
    float v;
    int i;
  };
  struct DoubleInt {
    double v;
    int i;
  };
  struct LongInt {
    long v;
    int i;
  };
  struct ShortInt {
    short v;
    int i;
  };
  struct LongDoubleInt {
    long double v;
    int i;
  };
  EXPECT_EQ(FindPredefinedDatatype(D::kFloatInt)->extent, sizeof(FloatInt));
  EXPECT_EQ(FindPredefinedDatatype(D::kDoubleInt)->extent, sizeof(DoubleInt));
  EXPECT_EQ(FindPredefinedDatatype(D::kLongInt)->extent, sizeof(LongInt));
  EXPECT_EQ(FindPredefinedDatatype(D::kShortInt)->extent, sizeof(ShortInt));
  EXPECT_EQ(FindPredefinedDatatype(D::kLongDoubleInt)->extent,
            sizeof(LongDoubleInt));
  EXPECT_EQ(FindPredefinedDatatype(D::kAint)->size, sizeof(std::intptr_t));
  EXPECT_EQ(FindPredefinedDatatype(D::kOffset)->size, sizeof(long long));
  EXPECT_EQ(FindPredefinedDatatype(D::kCount)->size, sizeof(long long));
  EXPECT_EQ(FindPredefinedDatatype(D::kCBool)->size, sizeof(bool));
}

TEST(DatatypeTest, NamesAreDistinctAndSizesFitExtents) {
  std::set<std::string> names;
  for (int i = 1; i < static_cast<int>(D::kPredefinedEnd); ++i) {
    const DatatypeInfo* info = FindPredefinedDatatype(static_cast<D>(i));
    ASSERT_NE(info, nullptr) << "id " << i;
    EXPECT_TRUE(names.insert(info->name).second) << info->name;
    EXPECT_EQ(std::strncmp(info->name, "MPI_", 4), 0) << info->name;
    // Only the bound markers MPI_LB and MPI_UB hold no data.
    if (i != static_cast<int>(D::kLb) && i != static_cast<int>(D::kUb)) {
      EXPECT_GT(info->size, 0u) << info->name;
    }
    EXPECT_LE(info->size, info->extent) << info->name;
  }
}

}  // namespace
}  // namespace bdmpi
