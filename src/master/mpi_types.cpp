#include "master/mpi_types.h"

namespace bdmpi {

MPI_Datatype OpenMpiDatatype(DatatypeId id) {
  switch (id) {
    case DatatypeId::kChar: return MPI_CHAR;
    case DatatypeId::kSignedChar: return MPI_SIGNED_CHAR;
    case DatatypeId::kUnsignedChar: return MPI_UNSIGNED_CHAR;
    case DatatypeId::kByte: return MPI_BYTE;
    case DatatypeId::kWchar: return MPI_WCHAR;
    case DatatypeId::kShort: return MPI_SHORT;
    case DatatypeId::kUnsignedShort: return MPI_UNSIGNED_SHORT;
    case DatatypeId::kInt: return MPI_INT;
    case DatatypeId::kUnsigned: return MPI_UNSIGNED;
    case DatatypeId::kLong: return MPI_LONG;
    case DatatypeId::kUnsignedLong: return MPI_UNSIGNED_LONG;
    case DatatypeId::kLongLong: return MPI_LONG_LONG_INT;
    case DatatypeId::kUnsignedLongLong: return MPI_UNSIGNED_LONG_LONG;
    case DatatypeId::kFloat: return MPI_FLOAT;
    case DatatypeId::kDouble: return MPI_DOUBLE;
    case DatatypeId::kLongDouble: return MPI_LONG_DOUBLE;
    case DatatypeId::kInt8: return MPI_INT8_T;
    case DatatypeId::kInt16: return MPI_INT16_T;
    case DatatypeId::kInt32: return MPI_INT32_T;
    case DatatypeId::kInt64: return MPI_INT64_T;
    case DatatypeId::kUint8: return MPI_UINT8_T;
    case DatatypeId::kUint16: return MPI_UINT16_T;
    case DatatypeId::kUint32: return MPI_UINT32_T;
    case DatatypeId::kUint64: return MPI_UINT64_T;
    case DatatypeId::kCBool: return MPI_C_BOOL;
    case DatatypeId::kCFloatComplex: return MPI_C_FLOAT_COMPLEX;
    case DatatypeId::kCDoubleComplex: return MPI_C_DOUBLE_COMPLEX;
    case DatatypeId::kCLongDoubleComplex: return MPI_C_LONG_DOUBLE_COMPLEX;
    case DatatypeId::kAint: return MPI_AINT;
    case DatatypeId::kOffset: return MPI_OFFSET;
    case DatatypeId::kCount: return MPI_COUNT;
    case DatatypeId::kPacked: return MPI_PACKED;
    case DatatypeId::kFloatInt: return MPI_FLOAT_INT;
    case DatatypeId::kDoubleInt: return MPI_DOUBLE_INT;
    case DatatypeId::kLongInt: return MPI_LONG_INT;
    case DatatypeId::k2Int: return MPI_2INT;
    case DatatypeId::kShortInt: return MPI_SHORT_INT;
    case DatatypeId::kLongDoubleInt: return MPI_LONG_DOUBLE_INT;
    case DatatypeId::kCxxBool: return MPI_CXX_BOOL;
    case DatatypeId::kCxxFloatComplex: return MPI_CXX_FLOAT_COMPLEX;
    case DatatypeId::kCxxDoubleComplex: return MPI_CXX_DOUBLE_COMPLEX;
    case DatatypeId::kCxxLongDoubleComplex: return MPI_CXX_LONG_DOUBLE_COMPLEX;
    default: return MPI_DATATYPE_NULL;
  }
}

MPI_Op OpenMpiOp(OpId id) {
  switch (id) {
    case OpId::kMax: return MPI_MAX;
    case OpId::kMin: return MPI_MIN;
    case OpId::kSum: return MPI_SUM;
    case OpId::kProd: return MPI_PROD;
    case OpId::kLand: return MPI_LAND;
    case OpId::kBand: return MPI_BAND;
    case OpId::kLor: return MPI_LOR;
    case OpId::kBor: return MPI_BOR;
    case OpId::kLxor: return MPI_LXOR;
    case OpId::kBxor: return MPI_BXOR;
    case OpId::kMinloc: return MPI_MINLOC;
    case OpId::kMaxloc: return MPI_MAXLOC;
    default: return MPI_OP_NULL;
  }
}

}  // namespace bdmpi
