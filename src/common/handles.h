// Numeric layout of MPI handles, shared by libbdmpi and bdmprun.
//
// include/mpi.h spells the same values as macros for user programs; the
// master never includes that header (it includes Open MPI's), so the values
// live here as well and tests/unit/handles_test.cpp checks that both agree.
#pragma once

#include <cstdint>

namespace bdmpi {

// The top byte of a handle names its kind; the low 24 bits index a table.
enum class HandleKind : std::uint32_t {
  kComm = 0x44,
  kGroup = 0x48,
  kDatatype = 0x4c,
  kInfo = 0x5c,
  kErrhandler = 0x54,
  kOp = 0x58,
  kRequest = 0x2c,
  kFile = 0x70,  // MPI_FILE_NULL is 0x30 << 24
  kWin = 0x60,   // MPI_WIN_NULL is 0x20 << 24
  kSession = 0x68,  // MPI_SESSION_NULL is 0x28 << 24
};

inline constexpr int kHandleIndexMask = 0x00ffffff;

constexpr int MakeHandle(HandleKind kind, int index) {
  return static_cast<int>((static_cast<std::uint32_t>(kind) << 24) |
                          (static_cast<std::uint32_t>(index) & kHandleIndexMask));
}
constexpr bool HandleIs(int handle, HandleKind kind) {
  return (static_cast<std::uint32_t>(handle) >> 24) ==
         static_cast<std::uint32_t>(kind);
}
constexpr int HandleIndex(int handle) { return handle & kHandleIndexMask; }

// Predefined datatypes, in the order of include/mpi.h (index = low bits).
enum class DatatypeId : std::uint16_t {
  kNull = 0,
  kChar,
  kSignedChar,
  kUnsignedChar,
  kByte,
  kWchar,
  kShort,
  kUnsignedShort,
  kInt,
  kUnsigned,
  kLong,
  kUnsignedLong,
  kLongLong,
  kUnsignedLongLong,
  kFloat,
  kDouble,
  kLongDouble,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUint8,
  kUint16,
  kUint32,
  kUint64,
  kCBool,
  kCFloatComplex,
  kCDoubleComplex,
  kCLongDoubleComplex,
  kAint,
  kOffset,
  kCount,
  kPacked,
  kFloatInt,
  kDoubleInt,
  kLongInt,
  k2Int,
  kShortInt,
  kLongDoubleInt,
  kCxxBool,
  kCxxFloatComplex,
  kCxxDoubleComplex,
  kCxxLongDoubleComplex,
  // The Fortran-named types C programs use, as Open MPI's mpi.h has them.
  kCharacter,
  kLogical,
  kInteger,
  kReal,
  kDoublePrecision,
  kComplex,
  kDoubleComplex,
  kInteger1,
  kInteger2,
  kInteger4,
  kInteger8,
  kReal4,
  kReal8,
  kComplex8,
  kComplex16,
  kLogical1,
  kLogical2,
  kLogical4,
  kLogical8,
  k2Integer,
  k2Real,
  k2DoublePrecision,
  kCComplex,  // MPI_C_COMPLEX: MPI_C_FLOAT_COMPLEX under its other name
  // MPI-1's bound markers (MPI_LB, MPI_UB): no data, only a lower or upper
  // bound for the type they are part of.
  kLb,
  kUb,
  // The 16-byte Fortran kinds (gfortran's REAL(16) is IEEE binary128,
  // __float128; INTEGER(16) is __int128).
  kReal16,
  kComplex32,
  kInteger16,
  kPredefinedEnd,  // first index free for derived datatypes
};

// Predefined reduction operations, in the order of include/mpi.h.
enum class OpId : std::uint16_t {
  kNull = 0,
  kMax,
  kMin,
  kSum,
  kProd,
  kLand,
  kBand,
  kLor,
  kBor,
  kLxor,
  kBxor,
  kMinloc,
  kMaxloc,
  kReplace,
  kNoOp,
  kPredefinedEnd,  // first index free for user-defined operations
};

}  // namespace bdmpi
