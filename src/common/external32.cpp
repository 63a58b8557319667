#include "common/external32.h"

#include <bit>
#include <cstring>
#include <stdexcept>

namespace bdmpi {
namespace {

static_assert(std::endian::native == std::endian::little,
              "external32 conversion assumes a little-endian host");
static_assert(sizeof(long double) == 16, "x87 80-bit long double padded to 16 bytes");

// How one member of an element converts.
enum class Kind : std::uint8_t {
  kSwap,        // same size, byte order reversed (size 1: copied)
  kSigned,      // integer of another size: truncated, or sign-extended back
  kUnsigned,    // the same, zero-extended back
  kLongDouble,  // x87 80-bit extended <-> IEEE binary128
};

struct Part {
  Kind kind;
  std::uint8_t native;    // bytes on the wire (host)
  std::uint8_t external;  // bytes in external32
};

// An element: one part, or two (complex numbers, value-index pairs).
struct Layout {
  Part first;
  Part second{Kind::kSwap, 0, 0};
};

constexpr Part Swap(std::uint8_t bytes) { return {Kind::kSwap, bytes, bytes}; }
constexpr Part kLongAsFour{Kind::kSigned, 8, 4};
constexpr Part kLongDouble{Kind::kLongDouble, 16, 16};

Layout LayoutOf(DatatypeId type) {
  using Id = DatatypeId;
  switch (type) {
    case Id::kChar:
    case Id::kSignedChar:
    case Id::kUnsignedChar:
    case Id::kByte:
    case Id::kPacked:
    case Id::kCharacter:
    case Id::kCBool:
    case Id::kCxxBool:
    case Id::kInt8:
    case Id::kUint8:
    case Id::kInteger1:
    case Id::kLogical1:
      return {Swap(1)};
    case Id::kWchar:
      return {{Kind::kUnsigned, sizeof(wchar_t), 2}};
    case Id::kShort:
    case Id::kUnsignedShort:
    case Id::kInt16:
    case Id::kUint16:
    case Id::kInteger2:
    case Id::kLogical2:
      return {Swap(2)};
    case Id::kInt:
    case Id::kUnsigned:
    case Id::kInt32:
    case Id::kUint32:
    case Id::kInteger:
    case Id::kInteger4:
    case Id::kLogical:
    case Id::kLogical4:
    case Id::kFloat:
    case Id::kReal:
    case Id::kReal4:
      return {Swap(4)};
    case Id::kLong:
      return {kLongAsFour};
    case Id::kUnsignedLong:
      return {{Kind::kUnsigned, 8, 4}};
    case Id::kLongLong:
    case Id::kUnsignedLongLong:
    case Id::kInt64:
    case Id::kUint64:
    case Id::kInteger8:
    case Id::kLogical8:
    case Id::kAint:
    case Id::kOffset:
    case Id::kCount:
    case Id::kDouble:
    case Id::kDoublePrecision:
    case Id::kReal8:
      return {Swap(8)};
    case Id::kLongDouble:
      return {kLongDouble};
    case Id::kCFloatComplex:
    case Id::kCComplex:
    case Id::kCxxFloatComplex:
    case Id::kComplex:
    case Id::kComplex8:
    case Id::k2Int:
    case Id::k2Integer:
    case Id::k2Real:
    case Id::kFloatInt:
      return {Swap(4), Swap(4)};
    case Id::kCDoubleComplex:
    case Id::kCxxDoubleComplex:
    case Id::kDoubleComplex:
    case Id::kComplex16:
    case Id::k2DoublePrecision:
      return {Swap(8), Swap(8)};
    case Id::kCLongDoubleComplex:
    case Id::kCxxLongDoubleComplex:
      return {kLongDouble, kLongDouble};
    case Id::kDoubleInt:
      return {Swap(8), Swap(4)};
    case Id::kLongInt:
      return {kLongAsFour, Swap(4)};
    case Id::kShortInt:
      return {Swap(2), Swap(4)};
    case Id::kLongDoubleInt:
      return {kLongDouble, Swap(4)};
    case Id::kReal16:  // binary128 already
    case Id::kInteger16:
      return {Swap(16)};
    case Id::kComplex32:
      return {Swap(16), Swap(16)};
    case Id::kLb:  // markers: no data
    case Id::kUb:
      return {Swap(0)};
    case Id::kNull:
    case Id::kPredefinedEnd:
      break;
  }
  throw std::invalid_argument("external32: not a predefined datatype");
}

std::uint64_t LoadBig(const std::byte* in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = value << 8 | std::to_integer<std::uint64_t>(in[i]);
  return value;
}

void StoreBig(std::uint64_t value, std::byte* out, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out[i] = static_cast<std::byte>(value & 0xff);
    value >>= 8;
  }
}

std::uint64_t LoadNative(const std::byte* in, int bytes) {
  std::uint64_t value = 0;
  std::memcpy(&value, in, static_cast<std::size_t>(bytes));  // little-endian
  return value;
}

void StoreNative(std::uint64_t value, std::byte* out, int bytes) {
  std::memcpy(out, &value, static_cast<std::size_t>(bytes));
}

// x87 extended: 64-bit significand with an explicit integer bit, then
// sign and 15-bit exponent. binary128: sign, the same 15-bit exponent
// (same bias), 112-bit fraction without the integer bit.
void LongDoubleOut(const std::byte* in, std::byte* out) {
  const std::uint64_t significand = LoadNative(in, 8);
  const std::uint64_t sign_exponent = LoadNative(in + 8, 2);
  const std::uint64_t fraction = significand & 0x7fffffffffffffffULL;
  StoreBig(sign_exponent << 48 | fraction >> 15, out, 8);
  StoreBig(fraction << 49, out + 8, 8);
}

void LongDoubleIn(const std::byte* in, std::byte* out) {
  const std::uint64_t high = LoadBig(in, 8), low = LoadBig(in + 8, 8);
  const std::uint64_t sign_exponent = high >> 48;
  const std::uint64_t fraction = (high & 0xffffffffffffULL) << 15 | low >> 49;
  // The integer bit is implicit in binary128: set for all but zeros and
  // subnormals (exponent 0).
  const std::uint64_t integer_bit = (sign_exponent & 0x7fff) != 0 ? 1ULL << 63 : 0;
  std::memset(out, 0, 16);
  StoreNative(integer_bit | fraction, out, 8);
  StoreNative(sign_exponent, out + 8, 2);
}

void PartOut(const Part& part, const std::byte* in, std::byte* out) {
  switch (part.kind) {
    case Kind::kSwap:
      for (int i = 0; i < part.native; ++i) out[i] = in[part.native - 1 - i];
      return;
    case Kind::kSigned:
    case Kind::kUnsigned:
      StoreBig(LoadNative(in, part.native), out, part.external);  // low-order bytes
      return;
    case Kind::kLongDouble:
      LongDoubleOut(in, out);
      return;
  }
}

void PartIn(const Part& part, const std::byte* in, std::byte* out) {
  switch (part.kind) {
    case Kind::kSwap:
      for (int i = 0; i < part.native; ++i) out[i] = in[part.native - 1 - i];
      return;
    case Kind::kSigned: {
      std::uint64_t value = LoadBig(in, part.external);
      const int unused = 64 - 8 * part.external;
      // Sign-extend: shift the sign bit to the top and back (arithmetic).
      value = static_cast<std::uint64_t>(static_cast<std::int64_t>(value << unused) >> unused);
      StoreNative(value, out, part.native);
      return;
    }
    case Kind::kUnsigned:
      StoreNative(LoadBig(in, part.external), out, part.native);
      return;
    case Kind::kLongDouble:
      LongDoubleIn(in, out);
      return;
  }
}

}  // namespace

std::uint64_t External32Size(DatatypeId type) {
  const Layout layout = LayoutOf(type);
  return layout.first.external + layout.second.external;
}

namespace {

// Calls step(part) for each part of `count` elements of `type`, in order.
template <class Step>
void EachPart(DatatypeId type, std::uint64_t count, Step step) {
  const Layout layout = LayoutOf(type);
  for (std::uint64_t i = 0; i < count; ++i) {
    for (const Part* part : {&layout.first, &layout.second}) {
      if (part->native != 0) step(*part);
    }
  }
}

}  // namespace

void ToExternal32(DatatypeId type, const std::byte* wire, std::uint64_t count, std::byte* out) {
  EachPart(type, count, [&](const Part& part) {
    PartOut(part, wire, out);
    wire += part.native;
    out += part.external;
  });
}

void FromExternal32(DatatypeId type, const std::byte* in, std::uint64_t count, std::byte* wire) {
  EachPart(type, count, [&](const Part& part) {
    PartIn(part, in, wire);
    in += part.external;
    wire += part.native;
  });
}

}  // namespace bdmpi
