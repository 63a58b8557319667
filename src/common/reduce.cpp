// Reduction kernels for the predefined operations on predefined datatypes.
//
// Which (op, type) pairs are valid follows MPI-3.1 section 5.9.2 strictly for
// the text and raw types, which is stricter than Open MPI.  Open MPI 4.1.4
// (checked with MPI_Reduce_local and MPI_Allreduce on one process) accepts
//   * MAX, MIN, SUM, PROD and all logical and bitwise ops on MPI_CHAR
//     (SUM of (char)100 + (char)100 gives -56, plain C arithmetic);
//   * the same ops on MPI_BYTE, where MPI allows only BAND, BOR and BXOR;
//   * LAND, LOR and LXOR on MPI_C_BOOL and MPI_CXX_BOOL (as MPI does), with
//     results 0 or 1;
// and rejects every op on MPI_WCHAR and MPI_PACKED, and MPI_REPLACE and
// MPI_NO_OP in reductions (they are meant for MPI_Accumulate).
// We reject arithmetic on MPI_CHAR and MPI_BYTE: a program that sums
// characters relies on an Open MPI extension, and rejecting it with
// MPI_ERR_OP points at the mistake instead of giving a result another MPI
// would refuse.  MPI_REPLACE and MPI_NO_OP are defined here on every type
// because one-sided accumulate needs them; the collective entry points must
// refuse them themselves.
//
// MPI_AINT, MPI_OFFSET and MPI_COUNT are in the integer class, so they also
// take LAND/LOR/LXOR, which MPI-3.1 lists only for C integers and logicals.
// Open MPI accepts them too, and they are plain integers.
#include "common/reduce.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/datatype.h"

namespace bdmpi {
namespace {

// Bytes handled by one block of the vectorised loop.  At -O2 GCC 12 uses
// the "very cheap" vectoriser, which skips loops that need a run-time alias
// check or a scalar epilogue.  A block of a fixed, vector-multiple length
// through __restrict pointers needs neither, so the kernels vectorise at
// -O2 as well as at -O3.
constexpr std::size_t kBlockBytes = 256;

template <class T, std::size_t kBlock, class F>
inline void ApplyBlock(const T* __restrict in, T* __restrict inout, F f) {
  for (std::size_t i = 0; i < kBlock; ++i) inout[i] = f(in[i], inout[i]);
}

template <class T>
bool Overlap(const T* in, const T* inout, std::size_t count) {
  const auto a = reinterpret_cast<std::uintptr_t>(in);
  const auto b = reinterpret_cast<std::uintptr_t>(inout);
  const std::uintptr_t bytes = count * sizeof(T);
  return a < b + bytes && b < a + bytes;
}

template <class T>
bool Aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}

// inout[i] = f(in[i], inout[i]) for i < count.
//
// The buffers may start at any byte: the master holds payloads at whatever
// offset its message store or a spill file gives them, and reading a T
// through a misaligned pointer is undefined (an aligned vector load from
// it may fault), so misaligned buffers go through aligned blocks on the
// stack.  in == inout is allowed (an MPI_IN_PLACE slip inside the runtime
// should not corrupt data) and takes the plain loop, whose element-by-
// element order is well defined; other overlaps are not, as in MPI.
template <class T, class F>
void Apply(const void* in_bytes, void* inout_bytes, std::size_t count, F f) {
  static_assert(sizeof(T) <= kBlockBytes);
  constexpr std::size_t kBlock = kBlockBytes / sizeof(T);
  if (!Aligned<T>(in_bytes) || !Aligned<T>(inout_bytes)) {
    const auto* src = static_cast<const unsigned char*>(in_bytes);
    auto* dst = static_cast<unsigned char*>(inout_bytes);
    T a[kBlock];
    T b[kBlock];
    for (std::size_t i = 0; i < count; i += kBlock) {
      const std::size_t m = count - i < kBlock ? count - i : kBlock;
      std::memcpy(a, src + i * sizeof(T), m * sizeof(T));
      std::memcpy(b, dst + i * sizeof(T), m * sizeof(T));
      if (m == kBlock) {
        ApplyBlock<T, kBlock>(a, b, f);
      } else {
        for (std::size_t j = 0; j < m; ++j) b[j] = f(a[j], b[j]);
      }
      std::memcpy(dst + i * sizeof(T), b, m * sizeof(T));
    }
    return;
  }
  const T* in = static_cast<const T*>(in_bytes);
  T* inout = static_cast<T*>(inout_bytes);
  std::size_t i = 0;
  if (!Overlap(in, inout, count)) {
    for (; i + kBlock <= count; i += kBlock) {
      ApplyBlock<T, kBlock>(in + i, inout + i, f);
    }
  }
  for (; i < count; ++i) inout[i] = f(in[i], inout[i]);
}

[[noreturn]] void NoKernel(OpId op, DatatypeId type) {
  const DatatypeInfo* info = FindPredefinedDatatype(type);
  throw std::invalid_argument(
      "bdmpi::Reduce: op " + std::to_string(static_cast<int>(op)) +
      " is not defined on " +
      (info != nullptr ? std::string(info->name)
                       : "datatype " + std::to_string(static_cast<int>(type))));
}

// MAX/MIN keep inout when the comparison is false, so for floating types a
// NaN in inout stays and a NaN in in is dropped, as in Open MPI; the form
// a > b ? a : b is exactly what maxps/maxpd compute, so it vectorises
// without -ffast-math.
struct Max {
  template <class T>
  T operator()(T a, T b) const {
    return a > b ? a : b;
  }
};
struct Min {
  template <class T>
  T operator()(T a, T b) const {
    return a < b ? a : b;
  }
};

// Integer arithmetic in an unsigned type of at least int's width, so that
// overflow wraps modulo 2^N (as Open MPI's C loops do in practice) instead
// of being undefined; narrowing back to T is modular since C++20.
// (std::make_unsigned knows __int128 only in GNU mode.)
template <class T>
struct WrapOf {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                  std::make_unsigned_t<T>>;
};
template <>
struct WrapOf<__int128> {
  using type = unsigned __int128;
};
template <class T>
using Wrap = typename WrapOf<T>::type;

// Also serves MPI_BYTE (bitwise ops) and the bool types (logical ops, read
// as bytes so that any non-zero byte counts as true without the undefined
// behaviour of loading a bool that is neither 0 nor 1).  Logical results are
// 0 or 1, as in C and Open MPI.
template <class T>
void IntegerKernel(OpId op, DatatypeId type, const void* in, void* inout,
                   std::size_t n) {
  using W = Wrap<T>;
  switch (op) {
    case OpId::kMax:
      return Apply<T>(in, inout, n, Max{});
    case OpId::kMin:
      return Apply<T>(in, inout, n, Min{});
    case OpId::kSum:
      return Apply<T>(in, inout, n,
                      [](T a, T b) { return static_cast<T>(W(a) + W(b)); });
    case OpId::kProd:
      return Apply<T>(in, inout, n,
                      [](T a, T b) { return static_cast<T>(W(a) * W(b)); });
    case OpId::kLand:
      return Apply<T>(in, inout, n,
                      [](T a, T b) { return T((a != 0) & (b != 0)); });
    case OpId::kLor:
      return Apply<T>(in, inout, n,
                      [](T a, T b) { return T((a != 0) | (b != 0)); });
    case OpId::kLxor:
      return Apply<T>(in, inout, n,
                      [](T a, T b) { return T((a != 0) != (b != 0)); });
    case OpId::kBand:
      return Apply<T>(in, inout, n, [](T a, T b) { return T(a & b); });
    case OpId::kBor:
      return Apply<T>(in, inout, n, [](T a, T b) { return T(a | b); });
    case OpId::kBxor:
      return Apply<T>(in, inout, n, [](T a, T b) { return T(a ^ b); });
    default:
      NoKernel(op, type);
  }
}

template <class T>
void FloatingKernel(OpId op, DatatypeId type, const void* in, void* inout,
                    std::size_t n) {
  switch (op) {
    case OpId::kMax:
      return Apply<T>(in, inout, n, Max{});
    case OpId::kMin:
      return Apply<T>(in, inout, n, Min{});
    case OpId::kSum:
      return Apply<T>(in, inout, n, [](T a, T b) { return a + b; });
    case OpId::kProd:
      return Apply<T>(in, inout, n, [](T a, T b) { return a * b; });
    default:
      NoKernel(op, type);
  }
}

// Same layout as C's R _Complex and std::complex<R>.
template <class R>
struct Complex {
  R re;
  R im;
};

// The textbook product rather than std::complex's operator*, which calls
// __mulsc3 & co. per element to recover infinities (C11 Annex G): that
// would be a library call per element and block vectorisation.  Open MPI's
// kernels use the textbook product as well.
template <class R>
void ComplexKernel(OpId op, DatatypeId type, const void* in, void* inout,
                   std::size_t n) {
  using T = Complex<R>;
  switch (op) {
    case OpId::kSum:
      return Apply<T>(in, inout, n, [](T a, T b) {
        return T{a.re + b.re, a.im + b.im};
      });
    case OpId::kProd:
      return Apply<T>(in, inout, n, [](T a, T b) {
        return T{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
      });
    default:
      NoKernel(op, type);
  }
}

// A value-index pair (MPI-3.1 section 5.9.4): the C pairs (MPI_FLOAT_INT
// & co.) have an int index, the Fortran pairs (MPI_2REAL, ...) an index of
// the value's type.
template <class V, class I = int>
struct ValueIndex {
  V value;
  I index;
};

// MAXLOC with std::greater, MINLOC with std::less.  On equal values MPI
// defines the result index as the smaller of the two; incomparable values
// (NaN) leave inout unchanged, as Open MPI does.
template <class T, class Better>
T Loc(T a, T b, Better better) {
  if (better(a.value, b.value)) return a;
  if (a.value == b.value && a.index < b.index) b.index = a.index;
  return b;
}

// Pairs arrive packed, the index right after the value (datatype.h), so
// an element is read and written member by member rather than as a struct,
// whose padding would shift every element after the first.
template <class V, class I, class Better>
void ApplyPacked(const void* in, void* inout, std::size_t n, Better better) {
  constexpr std::size_t kStride = sizeof(V) + sizeof(I);
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(inout);
  for (std::size_t i = 0; i < n; ++i) {
    ValueIndex<V, I> a, b;
    std::memcpy(&a.value, src + i * kStride, sizeof(V));
    std::memcpy(&a.index, src + i * kStride + sizeof(V), sizeof(I));
    std::memcpy(&b.value, dst + i * kStride, sizeof(V));
    std::memcpy(&b.index, dst + i * kStride + sizeof(V), sizeof(I));
    const ValueIndex<V, I> r = Loc(a, b, better);
    std::memcpy(dst + i * kStride, &r.value, sizeof(V));
    std::memcpy(dst + i * kStride + sizeof(V), &r.index, sizeof(I));
  }
}

template <class V, class I = int>
void PairKernel(OpId op, DatatypeId type, const void* in, void* inout,
                std::size_t n) {
  switch (op) {
    case OpId::kMaxloc:
      return ApplyPacked<V, I>(in, inout, n, std::greater<V>());
    case OpId::kMinloc:
      return ApplyPacked<V, I>(in, inout, n, std::less<V>());
    default:
      NoKernel(op, type);
  }
}

using Kernel = void (*)(OpId, DatatypeId, const void*, void*, std::size_t);

// The C integer types share kernels with the fixed-width type of their
// representation on LP64 Linux, the only ABI BDMPI targets.
static_assert(sizeof(short) == 2 && sizeof(int) == 4 && sizeof(long) == 8 &&
              sizeof(long long) == 8 && sizeof(std::intptr_t) == 8);

// The kernel for the ops of `type`'s class other than REPLACE and NO_OP, or
// nullptr when its class has none.  A switch rather than a table so that the
// compiler (-Wswitch) reports a DatatypeId added without a kernel decision.
Kernel KernelFor(DatatypeId type) {
  using Id = DatatypeId;
  switch (type) {
    case Id::kSignedChar:
    case Id::kInt8:
    case Id::kInteger1:
    case Id::kLogical1:
      return &IntegerKernel<std::int8_t>;
    case Id::kUnsignedChar:
    case Id::kUint8:
    case Id::kByte:
    case Id::kCBool:
    case Id::kCxxBool:
      return &IntegerKernel<std::uint8_t>;
    case Id::kShort:
    case Id::kInt16:
    case Id::kInteger2:
    case Id::kLogical2:
      return &IntegerKernel<std::int16_t>;
    case Id::kUnsignedShort:
    case Id::kUint16:
      return &IntegerKernel<std::uint16_t>;
    case Id::kInt:
    case Id::kInt32:
    case Id::kInteger:
    case Id::kInteger4:
    case Id::kLogical:
    case Id::kLogical4:
      return &IntegerKernel<std::int32_t>;
    case Id::kUnsigned:
    case Id::kUint32:
      return &IntegerKernel<std::uint32_t>;
    case Id::kLong:
    case Id::kLongLong:
    case Id::kInt64:
    case Id::kInteger8:
    case Id::kLogical8:
    case Id::kAint:
    case Id::kOffset:
    case Id::kCount:
      return &IntegerKernel<std::int64_t>;
    case Id::kUnsignedLong:
    case Id::kUnsignedLongLong:
    case Id::kUint64:
      return &IntegerKernel<std::uint64_t>;
    case Id::kFloat:
    case Id::kReal:
    case Id::kReal4:
      return &FloatingKernel<float>;
    case Id::kDouble:
    case Id::kDoublePrecision:
    case Id::kReal8:
      return &FloatingKernel<double>;
    case Id::kLongDouble:
      return &FloatingKernel<long double>;
    case Id::kCFloatComplex:
    case Id::kCComplex:
    case Id::kCxxFloatComplex:
    case Id::kComplex:
    case Id::kComplex8:
      return &ComplexKernel<float>;
    case Id::kCDoubleComplex:
    case Id::kCxxDoubleComplex:
    case Id::kDoubleComplex:
    case Id::kComplex16:
      return &ComplexKernel<double>;
    case Id::kCLongDoubleComplex:
    case Id::kCxxLongDoubleComplex:
      return &ComplexKernel<long double>;
    case Id::kFloatInt:
      return &PairKernel<float>;
    case Id::kDoubleInt:
      return &PairKernel<double>;
    case Id::kLongInt:
      return &PairKernel<long>;
    case Id::k2Int:
    case Id::k2Integer:
      return &PairKernel<int>;
    case Id::k2Real:
      return &PairKernel<float, float>;
    case Id::k2DoublePrecision:
      return &PairKernel<double, double>;
    case Id::kShortInt:
      return &PairKernel<short>;
    case Id::kLongDoubleInt:
      return &PairKernel<long double>;
    case Id::kReal16:
      return &FloatingKernel<__float128>;
    case Id::kComplex32:
      return &ComplexKernel<__float128>;
    case Id::kInteger16:
      return &IntegerKernel<__int128>;
    case Id::kNull:
    case Id::kChar:
    case Id::kCharacter:
    case Id::kWchar:
    case Id::kPacked:
    case Id::kLb:
    case Id::kUb:
    case Id::kPredefinedEnd:
      return nullptr;
  }
  return nullptr;
}

}  // namespace

bool ReductionDefined(OpId op, DatatypeId type) {
  const DatatypeInfo* info = FindPredefinedDatatype(type);
  if (info == nullptr) return false;
  const TypeClass c = info->type_class;
  switch (op) {
    case OpId::kMax:
    case OpId::kMin:
      return c == TypeClass::kInteger || c == TypeClass::kFloating;
    case OpId::kSum:
    case OpId::kProd:
      return c == TypeClass::kInteger || c == TypeClass::kFloating ||
             c == TypeClass::kComplex;
    case OpId::kLand:
    case OpId::kLor:
    case OpId::kLxor:
      return c == TypeClass::kInteger || c == TypeClass::kLogical;
    case OpId::kBand:
    case OpId::kBor:
    case OpId::kBxor:
      return c == TypeClass::kInteger || c == TypeClass::kByte;
    case OpId::kMinloc:
    case OpId::kMaxloc:
      return c == TypeClass::kPair;
    case OpId::kReplace:
    case OpId::kNoOp:
      return true;
    case OpId::kNull:
    case OpId::kPredefinedEnd:
      return false;
  }
  return false;
}

void Reduce(OpId op, DatatypeId type, const void* in, void* inout,
            std::size_t count) {
  // Callers validate user input; this guards the kernels' own invariant.
  if (!ReductionDefined(op, type)) NoKernel(op, type);
  if (op == OpId::kNoOp || count == 0) return;
  if (op == OpId::kReplace) {
    // memmove: REPLACE of a buffer onto itself must be harmless.
    std::memmove(inout, in, count * FindPredefinedDatatype(type)->size);
    return;
  }
  KernelFor(type)(op, type, in, inout, count);
}

}  // namespace bdmpi
