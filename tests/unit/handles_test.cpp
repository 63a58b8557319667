// include/mpi.h (what user programs see) and src/common/handles.h (what the
// master sees, since it includes Open MPI's mpi.h instead) spell the same
// handle values twice; this test is what keeps the two copies equal.  It is
// built against our mpi.h and must never see Open MPI's.
#include "common/handles.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "common/datatype.h"
#include "mpi.h"

// error.h keeps the MPI error classes for the master, which cannot include
// this mpi.h; check them here as soon as it exists.
#if __has_include("common/error.h")
#include "common/error.h"
#define BDMPI_HAVE_ERROR_H 1
#endif

#ifndef BDMPI
#error "handles_test must be compiled against BDMPI's include/mpi.h"
#endif

namespace bdmpi {
namespace {

constexpr int Type(DatatypeId id) {
  return MakeHandle(HandleKind::kDatatype, static_cast<int>(id));
}
constexpr int Op(OpId id) {
  return MakeHandle(HandleKind::kOp, static_cast<int>(id));
}

// X-lists so that the compile-time and the run-time checks cover the same
// names.
#define BDMPI_DATATYPES(X)                          \
  X(MPI_CHAR, kChar)                                \
  X(MPI_SIGNED_CHAR, kSignedChar)                   \
  X(MPI_UNSIGNED_CHAR, kUnsignedChar)               \
  X(MPI_BYTE, kByte)                                \
  X(MPI_WCHAR, kWchar)                              \
  X(MPI_SHORT, kShort)                              \
  X(MPI_UNSIGNED_SHORT, kUnsignedShort)             \
  X(MPI_INT, kInt)                                  \
  X(MPI_UNSIGNED, kUnsigned)                        \
  X(MPI_LONG, kLong)                                \
  X(MPI_UNSIGNED_LONG, kUnsignedLong)               \
  X(MPI_LONG_LONG_INT, kLongLong)                   \
  X(MPI_LONG_LONG, kLongLong)                       \
  X(MPI_UNSIGNED_LONG_LONG, kUnsignedLongLong)      \
  X(MPI_FLOAT, kFloat)                              \
  X(MPI_DOUBLE, kDouble)                            \
  X(MPI_LONG_DOUBLE, kLongDouble)                   \
  X(MPI_INT8_T, kInt8)                              \
  X(MPI_INT16_T, kInt16)                            \
  X(MPI_INT32_T, kInt32)                            \
  X(MPI_INT64_T, kInt64)                            \
  X(MPI_UINT8_T, kUint8)                            \
  X(MPI_UINT16_T, kUint16)                          \
  X(MPI_UINT32_T, kUint32)                          \
  X(MPI_UINT64_T, kUint64)                          \
  X(MPI_C_BOOL, kCBool)                             \
  X(MPI_C_FLOAT_COMPLEX, kCFloatComplex)            \
  X(MPI_C_DOUBLE_COMPLEX, kCDoubleComplex)          \
  X(MPI_C_LONG_DOUBLE_COMPLEX, kCLongDoubleComplex) \
  X(MPI_AINT, kAint)                                \
  X(MPI_OFFSET, kOffset)                            \
  X(MPI_COUNT, kCount)                              \
  X(MPI_PACKED, kPacked)                            \
  X(MPI_FLOAT_INT, kFloatInt)                       \
  X(MPI_DOUBLE_INT, kDoubleInt)                     \
  X(MPI_LONG_INT, kLongInt)                         \
  X(MPI_2INT, k2Int)                                \
  X(MPI_SHORT_INT, kShortInt)                       \
  X(MPI_LONG_DOUBLE_INT, kLongDoubleInt)            \
  X(MPI_CXX_BOOL, kCxxBool)                         \
  X(MPI_CXX_FLOAT_COMPLEX, kCxxFloatComplex)        \
  X(MPI_CXX_DOUBLE_COMPLEX, kCxxDoubleComplex)      \
  X(MPI_CXX_LONG_DOUBLE_COMPLEX, kCxxLongDoubleComplex) \
  X(MPI_CHARACTER, kCharacter) \
  X(MPI_LOGICAL, kLogical) \
  X(MPI_INTEGER, kInteger) \
  X(MPI_REAL, kReal) \
  X(MPI_DOUBLE_PRECISION, kDoublePrecision) \
  X(MPI_COMPLEX, kComplex) \
  X(MPI_DOUBLE_COMPLEX, kDoubleComplex) \
  X(MPI_INTEGER1, kInteger1) \
  X(MPI_INTEGER2, kInteger2) \
  X(MPI_INTEGER4, kInteger4) \
  X(MPI_INTEGER8, kInteger8) \
  X(MPI_REAL4, kReal4) \
  X(MPI_REAL8, kReal8) \
  X(MPI_COMPLEX8, kComplex8) \
  X(MPI_COMPLEX16, kComplex16) \
  X(MPI_LOGICAL1, kLogical1) \
  X(MPI_LOGICAL2, kLogical2) \
  X(MPI_LOGICAL4, kLogical4) \
  X(MPI_LOGICAL8, kLogical8) \
  X(MPI_2INTEGER, k2Integer) \
  X(MPI_2REAL, k2Real) \
  X(MPI_2DOUBLE_PRECISION, k2DoublePrecision) \
  X(MPI_C_COMPLEX, kCComplex) \
  X(MPI_LB, kLb)              \
  X(MPI_UB, kUb)              \
  X(MPI_REAL16, kReal16)      \
  X(MPI_COMPLEX32, kComplex32) \
  X(MPI_INTEGER16, kInteger16)

#define BDMPI_OPS(X)       \
  X(MPI_MAX, kMax)         \
  X(MPI_MIN, kMin)         \
  X(MPI_SUM, kSum)         \
  X(MPI_PROD, kProd)       \
  X(MPI_LAND, kLand)       \
  X(MPI_BAND, kBand)       \
  X(MPI_LOR, kLor)         \
  X(MPI_BOR, kBor)         \
  X(MPI_LXOR, kLxor)       \
  X(MPI_BXOR, kBxor)       \
  X(MPI_MINLOC, kMinloc)   \
  X(MPI_MAXLOC, kMaxloc)   \
  X(MPI_REPLACE, kReplace) \
  X(MPI_NO_OP, kNoOp)

#define BDMPI_ASSERT_TYPE(macro, id)           \
  static_assert(macro == Type(DatatypeId::id), \
                #macro " differs from DatatypeId::" #id);
#define BDMPI_ASSERT_OP(macro, id) \
  static_assert(macro == Op(OpId::id), #macro " differs from OpId::" #id);
BDMPI_DATATYPES(BDMPI_ASSERT_TYPE)
BDMPI_OPS(BDMPI_ASSERT_OP)

struct Named {
  int handle;
  int expected;
  const char* name;
};

#define BDMPI_NAMED_TYPE(macro, id) {macro, Type(DatatypeId::id), #macro},
#define BDMPI_NAMED_OP(macro, id) {macro, Op(OpId::id), #macro},
constexpr Named kDatatypes[] = {BDMPI_DATATYPES(BDMPI_NAMED_TYPE)};
constexpr Named kOps[] = {BDMPI_OPS(BDMPI_NAMED_OP)};

TEST(HandlesTest, EveryDatatypeMacroMatchesHandlesH) {
  for (const Named& t : kDatatypes) {
    EXPECT_EQ(t.handle, t.expected) << t.name;
    EXPECT_TRUE(HandleIs(t.handle, HandleKind::kDatatype)) << t.name;
  }
  // Every predefined id has a macro (MPI_LONG_LONG, a synonym, is one more).
  EXPECT_EQ(std::size(kDatatypes),
            static_cast<std::size_t>(DatatypeId::kPredefinedEnd) - 1 + 1);
}

TEST(HandlesTest, EveryOpMacroMatchesHandlesH) {
  for (const Named& o : kOps) {
    EXPECT_EQ(o.handle, o.expected) << o.name;
    EXPECT_TRUE(HandleIs(o.handle, HandleKind::kOp)) << o.name;
  }
  EXPECT_EQ(std::size(kOps),
            static_cast<std::size_t>(OpId::kPredefinedEnd) - 1);
}

// A macro's name and the table's name for the same index agree, so that
// error messages name the handle the user wrote.
TEST(HandlesTest, DatatypeNamesMatchTheMacros) {
  for (const Named& t : kDatatypes) {
    const auto id = static_cast<DatatypeId>(HandleIndex(t.handle));
    const DatatypeInfo* info = FindPredefinedDatatype(id);
    ASSERT_NE(info, nullptr) << t.name;
    const std::string name = t.name;
    // A synonym carries the name of the primary macro.
    if (name == "MPI_LONG_LONG") continue;
    EXPECT_EQ(name, info->name);
  }
}

// Null handles are of no kind that an index could be looked up in, so a
// kind check alone rejects them.
TEST(HandlesTest, NullHandlesAreOfNoValidKind) {
  EXPECT_FALSE(HandleIs(MPI_DATATYPE_NULL, HandleKind::kDatatype));
  EXPECT_FALSE(HandleIs(MPI_OP_NULL, HandleKind::kOp));
  EXPECT_FALSE(HandleIs(MPI_COMM_NULL, HandleKind::kComm));
  EXPECT_FALSE(HandleIs(MPI_GROUP_NULL, HandleKind::kGroup));
  EXPECT_FALSE(HandleIs(MPI_ERRHANDLER_NULL, HandleKind::kErrhandler));
  EXPECT_TRUE(HandleIs(MPI_COMM_WORLD, HandleKind::kComm));
  EXPECT_TRUE(HandleIs(MPI_COMM_SELF, HandleKind::kComm));
  EXPECT_TRUE(HandleIs(MPI_GROUP_EMPTY, HandleKind::kGroup));
  EXPECT_TRUE(HandleIs(MPI_ERRORS_ARE_FATAL, HandleKind::kErrhandler));
  EXPECT_TRUE(HandleIs(MPI_ERRORS_RETURN, HandleKind::kErrhandler));
  EXPECT_TRUE(HandleIs(MPI_REQUEST_NULL, HandleKind::kRequest));
  EXPECT_FALSE(HandleIs(MPI_INFO_NULL, HandleKind::kInfo));
  EXPECT_TRUE(HandleIs(MPI_INFO_ENV, HandleKind::kInfo));
  EXPECT_FALSE(HandleIs(MPI_FILE_NULL, HandleKind::kFile));
  // MPI_WIN_NULL is of no kind a live window has (its top bit is clear).
  EXPECT_FALSE(HandleIs(MPI_WIN_NULL, HandleKind::kWin));
  EXPECT_EQ(static_cast<unsigned>(MPI_WIN_NULL) >> 24 | 0x40u,
            static_cast<unsigned>(HandleKind::kWin));
  // The same for sessions; MPI_ERRORS_ABORT is the third predefined handler.
  EXPECT_FALSE(HandleIs(MPI_SESSION_NULL, HandleKind::kSession));
  EXPECT_EQ(static_cast<unsigned>(MPI_SESSION_NULL) >> 24 | 0x40u,
            static_cast<unsigned>(HandleKind::kSession));
  EXPECT_TRUE(HandleIs(MPI_ERRORS_ABORT, HandleKind::kErrhandler));
}

// The C types behind MPI_Aint/MPI_Offset/MPI_Count are the ones the
// datatype table describes for MPI_AINT/MPI_OFFSET/MPI_COUNT.
TEST(HandlesTest, AddressTypesMatchTheirDatatypes) {
  static_assert(std::is_same_v<MPI_Aint, std::intptr_t>);
  static_assert(std::is_same_v<MPI_Offset, long long>);
  static_assert(std::is_same_v<MPI_Count, long long>);
  EXPECT_EQ(FindPredefinedDatatype(DatatypeId::kAint)->size, sizeof(MPI_Aint));
  EXPECT_EQ(FindPredefinedDatatype(DatatypeId::kOffset)->size,
            sizeof(MPI_Offset));
  EXPECT_EQ(FindPredefinedDatatype(DatatypeId::kCount)->size,
            sizeof(MPI_Count));
}

#ifdef BDMPI_HAVE_ERROR_H
static_assert(kSuccess == MPI_SUCCESS);
static_assert(kErrBuffer == MPI_ERR_BUFFER);
static_assert(kErrCount == MPI_ERR_COUNT);
static_assert(kErrType == MPI_ERR_TYPE);
static_assert(kErrTag == MPI_ERR_TAG);
static_assert(kErrComm == MPI_ERR_COMM);
static_assert(kErrRank == MPI_ERR_RANK);
static_assert(kErrRequest == MPI_ERR_REQUEST);
static_assert(kErrRoot == MPI_ERR_ROOT);
static_assert(kErrGroup == MPI_ERR_GROUP);
static_assert(kErrOp == MPI_ERR_OP);
static_assert(kErrArg == MPI_ERR_ARG);
static_assert(kErrUnknown == MPI_ERR_UNKNOWN);
static_assert(kErrTruncate == MPI_ERR_TRUNCATE);
static_assert(kErrOther == MPI_ERR_OTHER);
static_assert(kErrIntern == MPI_ERR_INTERN);
static_assert(kErrInStatus == MPI_ERR_IN_STATUS);
static_assert(kErrPending == MPI_ERR_PENDING);
static_assert(kErrIo == MPI_ERR_IO);
static_assert(kErrName == MPI_ERR_NAME);
static_assert(kErrPort == MPI_ERR_PORT);
static_assert(kErrSpawn == MPI_ERR_SPAWN);
static_assert(kErrNoMem == MPI_ERR_NO_MEM);
static_assert(kErrNoSpace == MPI_ERR_NO_SPACE);
static_assert(kErrUnsupportedOperation == MPI_ERR_UNSUPPORTED_OPERATION);
static_assert(kErrRmaRange == MPI_ERR_RMA_RANGE);
#endif

}  // namespace
}  // namespace bdmpi
