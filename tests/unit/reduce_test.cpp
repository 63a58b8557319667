// Reduction kernels: which (op, type) pairs are defined, and what each op
// computes on each family of types.
#include "common/reduce.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/datatype.h"

namespace bdmpi {
namespace {

using D = DatatypeId;

constexpr OpId kAllOps[] = {
    OpId::kMax,    OpId::kMin,    OpId::kSum,     OpId::kProd, OpId::kLand,
    OpId::kBand,   OpId::kLor,    OpId::kBor,     OpId::kLxor, OpId::kBxor,
    OpId::kMinloc, OpId::kMaxloc, OpId::kReplace, OpId::kNoOp,
};

// ------------------------------------------------------------ validity

// One column per op, in kAllOps order:
//                       MAX MIN SUM PROD LAND BAND LOR BOR LXOR BXOR
//                       MINLOC MAXLOC REPLACE NO_OP
constexpr const char* kIntegerOps = "xxxxxxxxxx..xx";
constexpr const char* kFloatingOps = "xxxx........xx";
constexpr const char* kComplexOps = "..xx........xx";
constexpr const char* kLogicalOps = "....x.x.x...xx";
constexpr const char* kByteOps = ".....x.x.x..xx";
constexpr const char* kPairOps = "..........xxxx";
// MPI_CHAR, MPI_WCHAR, MPI_PACKED: MPI-3.1 puts them in no group.  Open MPI
// 4.1 would also accept MAX..BXOR on MPI_CHAR; we do not (see reduce.cpp).
constexpr const char* kNoOps = "............xx";

struct Validity {
  DatatypeId type;
  const char* ops;
};

constexpr Validity kValidity[] = {
    {D::kChar, kNoOps},
    {D::kSignedChar, kIntegerOps},
    {D::kUnsignedChar, kIntegerOps},
    {D::kByte, kByteOps},
    {D::kWchar, kNoOps},
    {D::kShort, kIntegerOps},
    {D::kUnsignedShort, kIntegerOps},
    {D::kInt, kIntegerOps},
    {D::kUnsigned, kIntegerOps},
    {D::kLong, kIntegerOps},
    {D::kUnsignedLong, kIntegerOps},
    {D::kLongLong, kIntegerOps},
    {D::kUnsignedLongLong, kIntegerOps},
    {D::kFloat, kFloatingOps},
    {D::kDouble, kFloatingOps},
    {D::kLongDouble, kFloatingOps},
    {D::kInt8, kIntegerOps},
    {D::kInt16, kIntegerOps},
    {D::kInt32, kIntegerOps},
    {D::kInt64, kIntegerOps},
    {D::kUint8, kIntegerOps},
    {D::kUint16, kIntegerOps},
    {D::kUint32, kIntegerOps},
    {D::kUint64, kIntegerOps},
    {D::kCBool, kLogicalOps},
    {D::kCFloatComplex, kComplexOps},
    {D::kCDoubleComplex, kComplexOps},
    {D::kCLongDoubleComplex, kComplexOps},
    {D::kAint, kIntegerOps},
    {D::kOffset, kIntegerOps},
    {D::kCount, kIntegerOps},
    {D::kPacked, kNoOps},
    {D::kFloatInt, kPairOps},
    {D::kDoubleInt, kPairOps},
    {D::kLongInt, kPairOps},
    {D::k2Int, kPairOps},
    {D::kShortInt, kPairOps},
    {D::kLongDoubleInt, kPairOps},
    {D::kCxxBool, kLogicalOps},
    {D::kCxxFloatComplex, kComplexOps},
    {D::kCxxDoubleComplex, kComplexOps},
    {D::kCxxLongDoubleComplex, kComplexOps},
    {D::kCharacter, kNoOps},
    {D::kLogical, kLogicalOps},
    {D::kInteger, kIntegerOps},
    {D::kReal, kFloatingOps},
    {D::kDoublePrecision, kFloatingOps},
    {D::kComplex, kComplexOps},
    {D::kDoubleComplex, kComplexOps},
    {D::kInteger1, kIntegerOps},
    {D::kInteger2, kIntegerOps},
    {D::kInteger4, kIntegerOps},
    {D::kInteger8, kIntegerOps},
    {D::kReal4, kFloatingOps},
    {D::kReal8, kFloatingOps},
    {D::kComplex8, kComplexOps},
    {D::kComplex16, kComplexOps},
    {D::kLogical1, kLogicalOps},
    {D::kLogical2, kLogicalOps},
    {D::kLogical4, kLogicalOps},
    {D::kLogical8, kLogicalOps},
    {D::k2Integer, kPairOps},
    {D::k2Real, kPairOps},
    {D::k2DoublePrecision, kPairOps},
    {D::kCComplex, kComplexOps},
    {D::kLb, kNoOps},
    {D::kUb, kNoOps},
    {D::kReal16, kFloatingOps},
    {D::kComplex32, kComplexOps},
    {D::kInteger16, kIntegerOps},
};

TEST(ReductionDefinedTest, EveryOpOnEveryPredefinedType) {
  ASSERT_EQ(std::size(kValidity),
            static_cast<std::size_t>(D::kPredefinedEnd) - 1);
  for (const Validity& row : kValidity) {
    const char* name = FindPredefinedDatatype(row.type)->name;
    for (std::size_t k = 0; k < std::size(kAllOps); ++k) {
      EXPECT_EQ(ReductionDefined(kAllOps[k], row.type), row.ops[k] == 'x')
          << "op " << static_cast<int>(kAllOps[k]) << " on " << name;
    }
  }
}

TEST(ReductionDefinedTest, NullAndOutOfRangeHandlesAreNeverDefined) {
  for (int t = 0; t <= static_cast<int>(D::kPredefinedEnd); ++t) {
    const auto type = static_cast<D>(t);
    EXPECT_FALSE(ReductionDefined(OpId::kNull, type)) << t;
    EXPECT_FALSE(ReductionDefined(OpId::kPredefinedEnd, type)) << t;
    EXPECT_FALSE(ReductionDefined(static_cast<OpId>(999), type)) << t;
  }
  for (OpId op : kAllOps) {
    EXPECT_FALSE(ReductionDefined(op, D::kNull));
    EXPECT_FALSE(ReductionDefined(op, D::kPredefinedEnd));
    EXPECT_FALSE(ReductionDefined(op, static_cast<D>(999)));
  }
}

TEST(ReduceTest, UndefinedPairThrowsAndLeavesTheBufferAlone) {
  char in[4] = {1, 2, 3, 4};
  char inout[4] = {5, 6, 7, 8};
  EXPECT_THROW(Reduce(OpId::kSum, D::kChar, in, inout, 4),
               std::invalid_argument);
  EXPECT_EQ(std::string(inout, 4), std::string("\5\6\7\10", 4));
  std::complex<double> a[1] = {{1, 2}}, b[1] = {{3, 4}};
  EXPECT_THROW(Reduce(OpId::kMax, D::kCDoubleComplex, a, b, 1),
               std::invalid_argument);
  EXPECT_EQ(b[0], std::complex<double>(3, 4));
  int x[2] = {1, 2}, y[2] = {3, 4};
  EXPECT_THROW(Reduce(OpId::kMaxloc, D::kInt, x, y, 1), std::invalid_argument);
  EXPECT_THROW(Reduce(OpId::kSum, D::kNull, x, y, 1), std::invalid_argument);
  EXPECT_THROW(Reduce(OpId::kNull, D::kInt, x, y, 1), std::invalid_argument);
  EXPECT_EQ(y[0], 3);
}

TEST(ReduceTest, ZeroCountTouchesNothing) {
  for (const Validity& row : kValidity) {
    for (std::size_t k = 0; k < std::size(kAllOps); ++k) {
      if (row.ops[k] == 'x') Reduce(kAllOps[k], row.type, nullptr, nullptr, 0);
    }
  }
}

// ------------------------------------------------------------ helpers

template <class T>
std::vector<T> Reduced(OpId op, DatatypeId type, const std::vector<T>& in,
                       std::vector<T> inout) {
  Reduce(op, type, in.data(), inout.data(), in.size());
  return inout;
}

template <class T, DatatypeId kId>
struct Typed {
  using type = T;
  static constexpr DatatypeId id = kId;
};

// Names typed tests after the MPI datatype (IntegerReduceTest/MPI_INT.*).
struct DatatypeName {
  template <class P>
  static std::string GetName(int) {
    return FindPredefinedDatatype(P::id)->name;
  }
};

// Enough elements to run both the blocked, vectorised part and the tail.
constexpr std::size_t kBulk = 1000;

// ------------------------------------------------------------ integers

template <class P>
class IntegerReduceTest : public ::testing::Test {};

using IntegerTypes = ::testing::Types<
    Typed<signed char, D::kSignedChar>, Typed<unsigned char, D::kUnsignedChar>,
    Typed<short, D::kShort>, Typed<unsigned short, D::kUnsignedShort>,
    Typed<int, D::kInt>, Typed<unsigned, D::kUnsigned>, Typed<long, D::kLong>,
    Typed<unsigned long, D::kUnsignedLong>, Typed<long long, D::kLongLong>,
    Typed<unsigned long long, D::kUnsignedLongLong>,
    Typed<std::int8_t, D::kInt8>, Typed<std::int16_t, D::kInt16>,
    Typed<std::int32_t, D::kInt32>, Typed<std::int64_t, D::kInt64>,
    Typed<std::uint8_t, D::kUint8>, Typed<std::uint16_t, D::kUint16>,
    Typed<std::uint32_t, D::kUint32>, Typed<std::uint64_t, D::kUint64>,
    Typed<std::intptr_t, D::kAint>, Typed<long long, D::kOffset>,
    Typed<long long, D::kCount>>;
TYPED_TEST_SUITE(IntegerReduceTest, IntegerTypes, DatatypeName);

// Every pair of interesting values (zero, small, negative, extremes), laid
// out in[k] = v[i], inout[k] = v[j] and repeated up to kBulk elements.
template <class T>
void IntegerOperands(std::vector<T>* in, std::vector<T>* inout) {
  using L = std::numeric_limits<T>;
  const std::vector<T> v = {T(0),
                            T(1),
                            T(2),
                            T(3),
                            T(7),
                            T(100),
                            T(-1),
                            T(-3),
                            T(-100),
                            L::max(),
                            L::min(),
                            T(L::max() - 1),
                            T(L::min() + 1),
                            T(0x55)};
  while (in->size() < kBulk) {
    for (T a : v) {
      for (T b : v) {
        in->push_back(a);
        inout->push_back(b);
      }
    }
  }
}

// Reference results computed in uint64 and narrowed: two's complement wrap.
template <class T>
T Expect(OpId op, T a, T b) {
  const auto ua = static_cast<std::uint64_t>(a);
  const auto ub = static_cast<std::uint64_t>(b);
  switch (op) {
    case OpId::kMax:
      return a > b ? a : b;
    case OpId::kMin:
      return a < b ? a : b;
    case OpId::kSum:
      return static_cast<T>(ua + ub);
    case OpId::kProd:
      return static_cast<T>(ua * ub);
    case OpId::kLand:
      return (a != 0 && b != 0) ? 1 : 0;
    case OpId::kLor:
      return (a != 0 || b != 0) ? 1 : 0;
    case OpId::kLxor:
      return ((a != 0) != (b != 0)) ? 1 : 0;
    case OpId::kBand:
      return static_cast<T>(ua & ub);
    case OpId::kBor:
      return static_cast<T>(ua | ub);
    case OpId::kBxor:
      return static_cast<T>(ua ^ ub);
    default:
      ADD_FAILURE() << "no reference for op " << static_cast<int>(op);
      return 0;
  }
}

TYPED_TEST(IntegerReduceTest, EveryArithmeticLogicalAndBitwiseOp) {
  using T = typename TypeParam::type;
  std::vector<T> in, inout;
  IntegerOperands(&in, &inout);
  for (OpId op :
       {OpId::kMax, OpId::kMin, OpId::kSum, OpId::kProd, OpId::kLand,
        OpId::kLor, OpId::kLxor, OpId::kBand, OpId::kBor, OpId::kBxor}) {
    const std::vector<T> got = Reduced(op, TypeParam::id, in, inout);
    for (std::size_t k = 0; k < in.size(); ++k) {
      ASSERT_EQ(got[k], Expect(op, in[k], inout[k]))
          << "op " << static_cast<int>(op) << " in " << +in[k] << " inout "
          << +inout[k] << " at " << k;
    }
  }
}

TEST(IntegerArithmeticTest, UnsignedArithmeticWraps) {
  EXPECT_EQ(Reduced<std::uint8_t>(OpId::kSum, D::kUint8, {200}, {100})[0], 44);
  EXPECT_EQ(
      Reduced<unsigned char>(OpId::kProd, D::kUnsignedChar, {16}, {17})[0], 16);
  // 65535 * 65535 overflows int, to which unsigned short promotes: the
  // kernel must not rely on that multiplication.
  EXPECT_EQ(
      Reduced<std::uint16_t>(OpId::kProd, D::kUint16, {65535}, {65535})[0], 1);
  EXPECT_EQ(Reduced<unsigned>(OpId::kSum, D::kUnsigned, {0xffffffffu}, {2})[0],
            1u);
  EXPECT_EQ(Reduced<std::uint64_t>(OpId::kSum, D::kUint64,
                                   {std::numeric_limits<std::uint64_t>::max()},
                                   {2})[0],
            1u);
  EXPECT_EQ(
      Reduced<std::uint64_t>(OpId::kProd, D::kUint64, {1ull << 63}, {2})[0],
      0u);
}

TEST(IntegerArithmeticTest, SignedOverflowWrapsLikeTwosComplement) {
  EXPECT_EQ(Reduced<int>(OpId::kSum, D::kInt, {std::numeric_limits<int>::max()},
                         {1})[0],
            std::numeric_limits<int>::min());
  EXPECT_EQ(Reduced<std::int8_t>(OpId::kSum, D::kInt8, {100}, {100})[0], -56);
  EXPECT_EQ(Reduced<long>(OpId::kProd, D::kLong,
                          {std::numeric_limits<long>::min()}, {-1})[0],
            std::numeric_limits<long>::min());
}

TEST(IntegerArithmeticTest, LogicalOpsGiveZeroOrOne) {
  const std::vector<int> a = {5, 0, -3, 0, 7};
  const std::vector<int> b = {7, 7, 0, 0, -9};
  EXPECT_EQ(Reduced(OpId::kLand, D::kInt, a, b),
            (std::vector<int>{1, 0, 0, 0, 1}));
  EXPECT_EQ(Reduced(OpId::kLor, D::kInt, a, b),
            (std::vector<int>{1, 1, 1, 0, 1}));
  EXPECT_EQ(Reduced(OpId::kLxor, D::kInt, a, b),
            (std::vector<int>{0, 1, 1, 0, 0}));
}

// ------------------------------------------------------------ bool, byte

// Bool buffers are read as bytes: any non-zero byte is true (a C program
// can store 2 in a _Bool's byte through a char pointer), results are 0/1.
TEST(LogicalReduceTest, BoolTypesTreatAnyNonZeroByteAsTrue) {
  const std::vector<std::uint8_t> a = {0, 0, 1, 1, 2, 255, 0, 2};
  const std::vector<std::uint8_t> b = {0, 1, 0, 1, 3, 1, 255, 0};
  for (D type : {D::kCBool, D::kCxxBool}) {
    SCOPED_TRACE(FindPredefinedDatatype(type)->name);
    EXPECT_EQ(Reduced(OpId::kLand, type, a, b),
              (std::vector<std::uint8_t>{0, 0, 0, 1, 1, 1, 0, 0}));
    EXPECT_EQ(Reduced(OpId::kLor, type, a, b),
              (std::vector<std::uint8_t>{0, 1, 1, 1, 1, 1, 1, 1}));
    EXPECT_EQ(Reduced(OpId::kLxor, type, a, b),
              (std::vector<std::uint8_t>{0, 1, 1, 0, 0, 0, 1, 1}));
  }
  bool x[3] = {true, false, true}, y[3] = {true, true, false};
  Reduce(OpId::kLand, D::kCxxBool, x, y, 3);
  EXPECT_TRUE(y[0]);
  EXPECT_FALSE(y[1]);
  EXPECT_FALSE(y[2]);
}

TEST(ByteReduceTest, BitwiseOps) {
  const std::vector<std::uint8_t> a(kBulk + 3, 0xf0);
  const std::vector<std::uint8_t> b(kBulk + 3, 0x3c);
  EXPECT_EQ(Reduced(OpId::kBand, D::kByte, a, b),
            std::vector<std::uint8_t>(kBulk + 3, 0x30));
  EXPECT_EQ(Reduced(OpId::kBor, D::kByte, a, b),
            std::vector<std::uint8_t>(kBulk + 3, 0xfc));
  EXPECT_EQ(Reduced(OpId::kBxor, D::kByte, a, b),
            std::vector<std::uint8_t>(kBulk + 3, 0xcc));
}

// ------------------------------------------------------------ floating

template <class P>
class FloatingReduceTest : public ::testing::Test {};

using FloatingTypes =
    ::testing::Types<Typed<float, D::kFloat>, Typed<double, D::kDouble>,
                     Typed<long double, D::kLongDouble>>;
TYPED_TEST_SUITE(FloatingReduceTest, FloatingTypes, DatatypeName);

TYPED_TEST(FloatingReduceTest, MaxMinSumProd) {
  using T = typename TypeParam::type;
  const D id = TypeParam::id;
  const std::vector<T> v = {T(0),    T(1.5),   T(-2.25), T(3),
                            T(1e10), T(-1e-3), T(0.1),   T(-7)};
  std::vector<T> in, inout;
  while (in.size() < kBulk) {
    for (T a : v) {
      for (T b : v) {
        in.push_back(a);
        inout.push_back(b);
      }
    }
  }
  const auto max = Reduced(OpId::kMax, id, in, inout);
  const auto min = Reduced(OpId::kMin, id, in, inout);
  const auto sum = Reduced(OpId::kSum, id, in, inout);
  const auto prod = Reduced(OpId::kProd, id, in, inout);
  for (std::size_t k = 0; k < in.size(); ++k) {
    const T a = in[k], b = inout[k];
    ASSERT_EQ(max[k], a > b ? a : b) << k;
    ASSERT_EQ(min[k], a < b ? a : b) << k;
    ASSERT_EQ(sum[k], T(a + b)) << k;
    ASSERT_EQ(prod[k], T(a * b)) << k;
  }
  EXPECT_EQ(Reduced<T>(OpId::kSum, id, {T(0.5)}, {T(0.25)})[0], T(0.75));
  EXPECT_EQ(Reduced<T>(OpId::kProd, id, {T(-1.5)}, {T(4)})[0], T(-6));
  EXPECT_EQ(Reduced<T>(OpId::kMax, id, {T(-1.5)}, {T(-4)})[0], T(-1.5));
  EXPECT_EQ(Reduced<T>(OpId::kMin, id, {T(-1.5)}, {T(-4)})[0], T(-4));
}

// ------------------------------------------------------------ complex

template <class P>
class ComplexReduceTest : public ::testing::Test {};

using ComplexTypes = ::testing::Types<
    Typed<std::complex<float>, D::kCFloatComplex>,
    Typed<std::complex<double>, D::kCDoubleComplex>,
    Typed<std::complex<long double>, D::kCLongDoubleComplex>,
    Typed<std::complex<float>, D::kCxxFloatComplex>,
    Typed<std::complex<double>, D::kCxxDoubleComplex>,
    Typed<std::complex<long double>, D::kCxxLongDoubleComplex>>;
TYPED_TEST_SUITE(ComplexReduceTest, ComplexTypes, DatatypeName);

TYPED_TEST(ComplexReduceTest, ProdIsTheComplexProductAndSumAddsParts) {
  using T = typename TypeParam::type;
  using R = typename T::value_type;
  const D id = TypeParam::id;
  EXPECT_EQ(Reduced<T>(OpId::kProd, id, {T(1, 2)}, {T(3, 4)})[0], T(-5, 10));
  EXPECT_EQ(Reduced<T>(OpId::kProd, id, {T(0, 1)}, {T(0, 1)})[0], T(-1, 0));
  EXPECT_EQ(Reduced<T>(OpId::kSum, id, {T(1, 2)}, {T(3, -4)})[0], T(4, -2));

  std::vector<T> in, inout;
  for (std::size_t k = 0; k < kBulk + 5; ++k) {
    in.emplace_back(R(k % 7) - 3, R(k % 5) * R(0.5));
    inout.emplace_back(R(k % 3) + R(0.25), -R(k % 11));
  }
  const auto prod = Reduced(OpId::kProd, id, in, inout);
  const auto sum = Reduced(OpId::kSum, id, in, inout);
  for (std::size_t k = 0; k < in.size(); ++k) {
    const R a = in[k].real(), b = in[k].imag();
    const R c = inout[k].real(), d = inout[k].imag();
    // Small integers and halves: every product and sum is exact.
    ASSERT_EQ(prod[k], T(a * c - b * d, a * d + b * c)) << k;
    ASSERT_EQ(sum[k], T(a + c, b + d)) << k;
  }
}

// ------------------------------------------------------------ pairs

template <class V>
struct ValueIndex {
  V value;
  int index;
  bool operator==(const ValueIndex& o) const {
    return value == o.value && index == o.index;
  }
};

// Pairs as the kernels take them (common/datatype.h): each value followed
// at once by its index, without the struct's padding.
template <class V>
std::vector<unsigned char> Packed(const std::vector<ValueIndex<V>>& pairs) {
  constexpr std::size_t kStride = sizeof(V) + sizeof(int);
  std::vector<unsigned char> bytes(pairs.size() * kStride);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    std::memcpy(&bytes[k * kStride], &pairs[k].value, sizeof(V));
    std::memcpy(&bytes[k * kStride + sizeof(V)], &pairs[k].index, sizeof(int));
  }
  return bytes;
}

template <class V>
std::vector<ValueIndex<V>> Unpacked(const std::vector<unsigned char>& bytes) {
  constexpr std::size_t kStride = sizeof(V) + sizeof(int);
  std::vector<ValueIndex<V>> pairs(bytes.size() / kStride);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    std::memcpy(&pairs[k].value, &bytes[k * kStride], sizeof(V));
    std::memcpy(&pairs[k].index, &bytes[k * kStride + sizeof(V)], sizeof(int));
  }
  return pairs;
}

template <class V>
std::vector<ValueIndex<V>> ReducedPairs(OpId op, DatatypeId type,
                                        const std::vector<ValueIndex<V>>& in,
                                        const std::vector<ValueIndex<V>>& inout) {
  const std::vector<unsigned char> packed_in = Packed(in);
  std::vector<unsigned char> packed_inout = Packed(inout);
  Reduce(op, type, packed_in.data(), packed_inout.data(), in.size());
  return Unpacked<V>(packed_inout);
}

template <class P>
class PairReduceTest : public ::testing::Test {};

using PairTypes =
    ::testing::Types<Typed<float, D::kFloatInt>, Typed<double, D::kDoubleInt>,
                     Typed<long, D::kLongInt>, Typed<int, D::k2Int>,
                     Typed<short, D::kShortInt>,
                     Typed<long double, D::kLongDoubleInt>>;
TYPED_TEST_SUITE(PairReduceTest, PairTypes, DatatypeName);

TYPED_TEST(PairReduceTest, MaxlocAndMinlocKeepTheSmallerIndexOnTies) {
  using V = typename TypeParam::type;
  using P = ValueIndex<V>;
  const D id = TypeParam::id;
  ASSERT_EQ(FindPredefinedDatatype(id)->extent, sizeof(P));
  ASSERT_EQ(FindPredefinedDatatype(id)->size, sizeof(V) + sizeof(int));
  struct Case {
    P in, inout, max, min;
  };
  const Case cases[] = {
      {{5, 2}, {3, 7}, {5, 2}, {3, 7}},      // in larger
      {{3, 7}, {5, 2}, {5, 2}, {3, 7}},      // inout larger
      {{5, 2}, {5, 1}, {5, 1}, {5, 1}},      // tie, inout's index smaller
      {{5, 1}, {5, 2}, {5, 1}, {5, 1}},      // tie, in's index smaller
      {{-4, 9}, {-4, 9}, {-4, 9}, {-4, 9}},  // identical
      {{-4, 0}, {6, 3}, {6, 3}, {-4, 0}},    // negative values
  };
  std::vector<P> in, inout, max, min;
  while (in.size() < kBulk) {
    for (const Case& c : cases) {
      in.push_back(c.in);
      inout.push_back(c.inout);
      max.push_back(c.max);
      min.push_back(c.min);
    }
  }
  const auto got_max = ReducedPairs<V>(OpId::kMaxloc, id, in, inout);
  const auto got_min = ReducedPairs<V>(OpId::kMinloc, id, in, inout);
  for (std::size_t k = 0; k < in.size(); ++k) {
    ASSERT_EQ(got_max[k], max[k]) << "case " << k % std::size(cases);
    ASSERT_EQ(got_min[k], min[k]) << "case " << k % std::size(cases);
  }
}

// ------------------------------------------------------------ replace, no-op

TEST(ReduceTest, ReplaceCopiesWholeElementsAndNoOpLeavesThem) {
  for (int t = 1; t < static_cast<int>(D::kPredefinedEnd); ++t) {
    const auto type = static_cast<D>(t);
    const DatatypeInfo* info = FindPredefinedDatatype(type);
    SCOPED_TRACE(info->name);
    constexpr std::size_t kCount = 3;
    // One element more than reduced, to see that it stays untouched.
    const std::size_t bytes = (kCount + 1) * info->size;  // wire bytes
    std::vector<unsigned char> in(bytes), inout(bytes);
    for (std::size_t i = 0; i < bytes; ++i) {
      in[i] = static_cast<unsigned char>(i * 7 + 1);
      inout[i] = static_cast<unsigned char>(i * 13 + 5);
    }
    const auto before = inout;
    Reduce(OpId::kNoOp, type, in.data(), inout.data(), kCount);
    EXPECT_EQ(inout, before);
    Reduce(OpId::kReplace, type, in.data(), inout.data(), kCount);
    const std::size_t reduced = kCount * info->size;
    EXPECT_EQ(std::memcmp(inout.data(), in.data(), reduced), 0);
    EXPECT_EQ(std::memcmp(inout.data() + reduced, before.data() + reduced,
                          info->size),
              0);
  }
}

// ------------------------------------------------------------ buffers

TEST(ReduceTest, InPlaceOperandsReduceElementByElement) {
  std::vector<int> v(kBulk);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<int>(k) - 50;
  const auto original = v;
  Reduce(OpId::kSum, D::kInt, v.data(), v.data(), v.size());
  for (std::size_t k = 0; k < v.size(); ++k) ASSERT_EQ(v[k], 2 * original[k]);
  Reduce(OpId::kReplace, D::kInt, v.data(), v.data(), v.size());
  for (std::size_t k = 0; k < v.size(); ++k) ASSERT_EQ(v[k], 2 * original[k]);
}

// Large counts, starting one element past a vector boundary (the blocked
// loop, its tail and unaligned vector accesses) and one byte past it (the
// path for buffers not aligned even to their element type, which the
// master produces when it reduces payloads at arbitrary offsets), against a
// plain reference loop.
TEST(ReduceTest, LargeAndMisalignedBuffersMatchAPlainLoop) {
  constexpr std::size_t kCount = (1u << 20) + 37;
  const auto check = [](auto proto, OpId op, DatatypeId type, auto ref) {
    using T = decltype(proto);
    std::vector<T> in(kCount), inout(kCount);
    for (std::size_t k = 0; k < kCount; ++k) {
      in[k] = static_cast<T>((k * 2654435761u) % 1000) - static_cast<T>(300);
      inout[k] = static_cast<T>((k * 40503u) % 777);
    }
    for (std::size_t offset : {sizeof(T), std::size_t{1}}) {
      SCOPED_TRACE("offset " + std::to_string(offset));
      // Storage of max_align_t, so that offset alone decides alignment.
      const std::size_t words =
          (kCount * sizeof(T) + offset) / sizeof(std::max_align_t) + 1;
      std::vector<std::max_align_t> in_words(words), inout_words(words);
      auto* in_bytes = reinterpret_cast<unsigned char*>(in_words.data());
      auto* inout_bytes = reinterpret_cast<unsigned char*>(inout_words.data());
      std::memcpy(in_bytes + offset, in.data(), kCount * sizeof(T));
      std::memcpy(inout_bytes + offset, inout.data(), kCount * sizeof(T));
      Reduce(op, type, in_bytes + offset, inout_bytes + offset, kCount);
      std::vector<T> got(kCount);
      std::memcpy(got.data(), inout_bytes + offset, kCount * sizeof(T));
      for (std::size_t k = 0; k < kCount; ++k) {
        ASSERT_EQ(got[k], static_cast<T>(ref(in[k], inout[k]))) << k;
      }
    }
  };
  check(std::int32_t{}, OpId::kSum, D::kInt32,
        [](std::int32_t a, std::int32_t b) { return a + b; });
  check(std::int16_t{}, OpId::kProd, D::kShort,
        [](std::int16_t a, std::int16_t b) { return std::int16_t(a * b); });
  check(std::uint8_t{}, OpId::kLxor, D::kUint8,
        [](std::uint8_t a, std::uint8_t b) { return (a != 0) != (b != 0); });
  check(double{}, OpId::kMax, D::kDouble,
        [](double a, double b) { return a > b ? a : b; });
  check(float{}, OpId::kMin, D::kFloat,
        [](float a, float b) { return a < b ? a : b; });
  check(std::uint64_t{}, OpId::kBxor, D::kUint64,
        [](std::uint64_t a, std::uint64_t b) { return a ^ b; });
}

}  // namespace
}  // namespace bdmpi
