// The table of predefined datatypes.
//
// Sizes and extents are those of the C layout on the host, which is what
// Open MPI reports as well: user buffers hold C objects, and the master
// reduces with the same layout.  Checked against Open MPI 4.1.4 on x86-64
// (MPI_Type_size / MPI_Type_get_extent), where the notable values are
//   MPI_LONG_DOUBLE      size 16 extent 16 (the 80-bit value is padded to 16)
//   MPI_SHORT_INT        size  6 extent  8
//   MPI_DOUBLE_INT       size 12 extent 16
//   MPI_LONG_INT         size 12 extent 16
//   MPI_LONG_DOUBLE_INT  size 20 extent 32
// i.e. the size of a value-index pair counts its two members without the
// padding between or after them, and its extent is sizeof the struct. On
// the wire a pair is packed to its size (see datatype.h).
#include "common/datatype.h"

#include <complex>
#include <cstddef>
#include <cstdint>

namespace bdmpi {
namespace {

// The C layout of the MINLOC/MAXLOC pair types (MPI-3.1 section 5.9.4).
template <class V>
struct ValueIntPair {
  V value;
  int index;
};

struct Entry {
  DatatypeId id;
  DatatypeInfo info;
};

template <class T>
constexpr Entry Plain(DatatypeId id, const char* name, TypeClass type_class) {
  return {id, {name, sizeof(T), sizeof(T), alignof(T), type_class}};
}

template <class V>
constexpr Entry Pair(DatatypeId id, const char* name) {
  return {id,
          {name, sizeof(V) + sizeof(int), sizeof(ValueIntPair<V>), alignof(ValueIntPair<V>),
           TypeClass::kPair, offsetof(ValueIntPair<V>, index), sizeof(int)}};
}

// A Fortran MINLOC/MAXLOC pair: value and index of one type.
template <class V>
constexpr Entry SamePair(DatatypeId id, const char* name) {
  return {id,
          {name, 2 * sizeof(V), 2 * sizeof(V), alignof(V), TypeClass::kPair, sizeof(V), sizeof(V)}};
}

// gfortran's COMPLEX(16): two binary128 values.
struct Complex32 {
  __float128 re, im;
};

using C = TypeClass;
using D = DatatypeId;

// C and C++ complex types share the layout of T[2] (C11 6.2.5p13,
// C++ [complex.numbers]), so std::complex stands for both.
constexpr Entry kTable[] = {
    {D::kNull, {"MPI_DATATYPE_NULL", 0, 0, 1, C::kOther}},
    // MPI_CHAR is text, not a number: MPI-3.1 lists it in no reduction group.
    Plain<char>(D::kChar, "MPI_CHAR", C::kOther),
    Plain<signed char>(D::kSignedChar, "MPI_SIGNED_CHAR", C::kInteger),
    Plain<unsigned char>(D::kUnsignedChar, "MPI_UNSIGNED_CHAR", C::kInteger),
    Plain<unsigned char>(D::kByte, "MPI_BYTE", C::kByte),
    Plain<wchar_t>(D::kWchar, "MPI_WCHAR", C::kOther),
    Plain<short>(D::kShort, "MPI_SHORT", C::kInteger),
    Plain<unsigned short>(D::kUnsignedShort, "MPI_UNSIGNED_SHORT", C::kInteger),
    Plain<int>(D::kInt, "MPI_INT", C::kInteger),
    Plain<unsigned>(D::kUnsigned, "MPI_UNSIGNED", C::kInteger),
    Plain<long>(D::kLong, "MPI_LONG", C::kInteger),
    Plain<unsigned long>(D::kUnsignedLong, "MPI_UNSIGNED_LONG", C::kInteger),
    Plain<long long>(D::kLongLong, "MPI_LONG_LONG_INT", C::kInteger),
    Plain<unsigned long long>(D::kUnsignedLongLong, "MPI_UNSIGNED_LONG_LONG",
                              C::kInteger),
    Plain<float>(D::kFloat, "MPI_FLOAT", C::kFloating),
    Plain<double>(D::kDouble, "MPI_DOUBLE", C::kFloating),
    Plain<long double>(D::kLongDouble, "MPI_LONG_DOUBLE", C::kFloating),
    Plain<std::int8_t>(D::kInt8, "MPI_INT8_T", C::kInteger),
    Plain<std::int16_t>(D::kInt16, "MPI_INT16_T", C::kInteger),
    Plain<std::int32_t>(D::kInt32, "MPI_INT32_T", C::kInteger),
    Plain<std::int64_t>(D::kInt64, "MPI_INT64_T", C::kInteger),
    Plain<std::uint8_t>(D::kUint8, "MPI_UINT8_T", C::kInteger),
    Plain<std::uint16_t>(D::kUint16, "MPI_UINT16_T", C::kInteger),
    Plain<std::uint32_t>(D::kUint32, "MPI_UINT32_T", C::kInteger),
    Plain<std::uint64_t>(D::kUint64, "MPI_UINT64_T", C::kInteger),
    // C _Bool and C++ bool are both one byte with GCC and Clang on Linux.
    Plain<bool>(D::kCBool, "MPI_C_BOOL", C::kLogical),
    Plain<std::complex<float>>(D::kCFloatComplex, "MPI_C_FLOAT_COMPLEX",
                               C::kComplex),
    Plain<std::complex<double>>(D::kCDoubleComplex, "MPI_C_DOUBLE_COMPLEX",
                                C::kComplex),
    Plain<std::complex<long double>>(D::kCLongDoubleComplex,
                                     "MPI_C_LONG_DOUBLE_COMPLEX", C::kComplex),
    // The multi-language types reduce like the integers they are.
    Plain<std::intptr_t>(D::kAint, "MPI_AINT", C::kInteger),
    Plain<long long>(D::kOffset, "MPI_OFFSET", C::kInteger),
    Plain<long long>(D::kCount, "MPI_COUNT", C::kInteger),
    Plain<unsigned char>(D::kPacked, "MPI_PACKED", C::kOther),
    Pair<float>(D::kFloatInt, "MPI_FLOAT_INT"),
    Pair<double>(D::kDoubleInt, "MPI_DOUBLE_INT"),
    Pair<long>(D::kLongInt, "MPI_LONG_INT"),
    Pair<int>(D::k2Int, "MPI_2INT"),
    Pair<short>(D::kShortInt, "MPI_SHORT_INT"),
    Pair<long double>(D::kLongDoubleInt, "MPI_LONG_DOUBLE_INT"),
    Plain<bool>(D::kCxxBool, "MPI_CXX_BOOL", C::kLogical),
    Plain<std::complex<float>>(D::kCxxFloatComplex, "MPI_CXX_FLOAT_COMPLEX",
                               C::kComplex),
    Plain<std::complex<double>>(D::kCxxDoubleComplex, "MPI_CXX_DOUBLE_COMPLEX",
                                C::kComplex),
    Plain<std::complex<long double>>(
        D::kCxxLongDoubleComplex, "MPI_CXX_LONG_DOUBLE_COMPLEX", C::kComplex),
    // Fortran's INTEGER, REAL, LOGICAL are 4 bytes, DOUBLE PRECISION 8, and
    // .TRUE. is 1 with gfortran; MPI_2REAL & co. pair a value with an index
    // of the same type.
    Plain<char>(D::kCharacter, "MPI_CHARACTER", C::kOther),
    Plain<std::int32_t>(D::kLogical, "MPI_LOGICAL", C::kLogical),
    Plain<std::int32_t>(D::kInteger, "MPI_INTEGER", C::kInteger),
    Plain<float>(D::kReal, "MPI_REAL", C::kFloating),
    Plain<double>(D::kDoublePrecision, "MPI_DOUBLE_PRECISION", C::kFloating),
    Plain<std::complex<float>>(D::kComplex, "MPI_COMPLEX", C::kComplex),
    Plain<std::complex<double>>(D::kDoubleComplex, "MPI_DOUBLE_COMPLEX", C::kComplex),
    Plain<std::int8_t>(D::kInteger1, "MPI_INTEGER1", C::kInteger),
    Plain<std::int16_t>(D::kInteger2, "MPI_INTEGER2", C::kInteger),
    Plain<std::int32_t>(D::kInteger4, "MPI_INTEGER4", C::kInteger),
    Plain<std::int64_t>(D::kInteger8, "MPI_INTEGER8", C::kInteger),
    Plain<float>(D::kReal4, "MPI_REAL4", C::kFloating),
    Plain<double>(D::kReal8, "MPI_REAL8", C::kFloating),
    Plain<std::complex<float>>(D::kComplex8, "MPI_COMPLEX8", C::kComplex),
    Plain<std::complex<double>>(D::kComplex16, "MPI_COMPLEX16", C::kComplex),
    Plain<std::int8_t>(D::kLogical1, "MPI_LOGICAL1", C::kLogical),
    Plain<std::int16_t>(D::kLogical2, "MPI_LOGICAL2", C::kLogical),
    Plain<std::int32_t>(D::kLogical4, "MPI_LOGICAL4", C::kLogical),
    Plain<std::int64_t>(D::kLogical8, "MPI_LOGICAL8", C::kLogical),
    SamePair<std::int32_t>(D::k2Integer, "MPI_2INTEGER"),
    SamePair<float>(D::k2Real, "MPI_2REAL"),
    SamePair<double>(D::k2DoublePrecision, "MPI_2DOUBLE_PRECISION"),
    Plain<std::complex<float>>(D::kCComplex, "MPI_C_COMPLEX", C::kComplex),
    {D::kLb, {"MPI_LB", 0, 0, 1, C::kOther}},
    {D::kUb, {"MPI_UB", 0, 0, 1, C::kOther}},
    Plain<__float128>(D::kReal16, "MPI_REAL16", C::kFloating),
    Plain<Complex32>(D::kComplex32, "MPI_COMPLEX32", C::kComplex),
    Plain<__int128>(D::kInteger16, "MPI_INTEGER16", C::kInteger),
};

constexpr std::size_t kTableSize = sizeof(kTable) / sizeof(kTable[0]);

// The lookup indexes kTable by id, so a row out of order or missing would
// silently describe the wrong type; catch that at compile time.
constexpr bool TableInIdOrder() {
  for (std::size_t i = 0; i < kTableSize; ++i) {
    if (static_cast<std::size_t>(kTable[i].id) != i) return false;
  }
  return true;
}
static_assert(kTableSize ==
              static_cast<std::size_t>(DatatypeId::kPredefinedEnd));
static_assert(TableInIdOrder());

}  // namespace

const DatatypeInfo* FindPredefinedDatatype(DatatypeId id) {
  const auto index = static_cast<std::size_t>(id);
  if (id == DatatypeId::kNull || index >= kTableSize) return nullptr;
  return &kTable[index].info;
}

}  // namespace bdmpi
