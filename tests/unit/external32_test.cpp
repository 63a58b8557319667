// The external32 representation (src/common/external32.*): big-endian,
// the standard's sizes (MPI-3.1 13.5.2), and back again.
#include "common/external32.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace bdmpi {
namespace {

using D = DatatypeId;

template <class T>
std::vector<std::byte> Out(D type, const T& value) {
  std::vector<std::byte> out(External32Size(type));
  ToExternal32(type, reinterpret_cast<const std::byte*>(&value), 1, out.data());
  return out;
}

template <class T>
T In(D type, const std::vector<std::byte>& bytes) {
  T value{};
  FromExternal32(type, bytes.data(), 1, reinterpret_cast<std::byte*>(&value));
  return value;
}

std::vector<std::byte> Bytes(std::initializer_list<int> values) {
  std::vector<std::byte> bytes;
  for (int v : values) bytes.push_back(static_cast<std::byte>(v));
  return bytes;
}

TEST(External32Test, StandardSizes) {
  EXPECT_EQ(External32Size(D::kChar), 1u);
  EXPECT_EQ(External32Size(D::kWchar), 2u);
  EXPECT_EQ(External32Size(D::kShort), 2u);
  EXPECT_EQ(External32Size(D::kInt), 4u);
  EXPECT_EQ(External32Size(D::kLong), 4u);
  EXPECT_EQ(External32Size(D::kUnsignedLong), 4u);
  EXPECT_EQ(External32Size(D::kLongLong), 8u);
  EXPECT_EQ(External32Size(D::kDouble), 8u);
  EXPECT_EQ(External32Size(D::kLongDouble), 16u);
  EXPECT_EQ(External32Size(D::kAint), 8u);
  EXPECT_EQ(External32Size(D::kCDoubleComplex), 16u);
  EXPECT_EQ(External32Size(D::kCLongDoubleComplex), 32u);
  EXPECT_EQ(External32Size(D::kDoubleInt), 12u);
  EXPECT_EQ(External32Size(D::kLongInt), 8u);
  EXPECT_EQ(External32Size(D::kLongDoubleInt), 20u);
  // Every predefined type has a size.
  for (int t = 1; t < static_cast<int>(D::kPredefinedEnd); ++t) {
    const auto type = static_cast<D>(t);
    if (type == D::kLb || type == D::kUb) continue;  // markers hold no data
    EXPECT_GT(External32Size(type), 0u) << t;
  }
}

TEST(External32Test, IntegersAreBigEndian) {
  EXPECT_EQ(Out(D::kInt, 0x01020304), Bytes({1, 2, 3, 4}));
  EXPECT_EQ(Out(D::kShort, static_cast<short>(-2)), Bytes({0xff, 0xfe}));
  EXPECT_EQ(Out(D::kLongLong, 0x0102030405060708LL), Bytes({1, 2, 3, 4, 5, 6, 7, 8}));
  // long is 4 bytes: sign-extended back.
  EXPECT_EQ(Out(D::kLong, -3L), Bytes({0xff, 0xff, 0xff, 0xfd}));
  EXPECT_EQ(In<long>(D::kLong, Bytes({0xff, 0xff, 0xff, 0xfd})), -3L);
  EXPECT_EQ(In<unsigned long>(D::kUnsignedLong, Bytes({0xff, 0xff, 0xff, 0xfd})),
            0xfffffffdUL);
  EXPECT_EQ(In<wchar_t>(D::kWchar, Out(D::kWchar, L'z')), L'z');
}

TEST(External32Test, FloatsAreIeeeBigEndian) {
  EXPECT_EQ(Out(D::kFloat, 1.0f), Bytes({0x3f, 0x80, 0, 0}));
  EXPECT_EQ(Out(D::kDouble, -2.0), Bytes({0xc0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(In<double>(D::kDouble, Out(D::kDouble, 3.25)), 3.25);
}

TEST(External32Test, LongDoubleIsBinary128) {
  // 1.0L: exponent 0x3fff, fraction 0.
  EXPECT_EQ(Out(D::kLongDouble, 1.0L),
            Bytes({0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // -1.5L: sign, exponent 0x3fff, fraction .1
  EXPECT_EQ(Out(D::kLongDouble, -1.5L),
            Bytes({0xbf, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  for (long double x : {0.0L, 1.0L, -1.5L, 3.141592653589793238L, 1e-4930L, 1e4930L, 1e-4940L}) {
    const auto back = In<long double>(D::kLongDouble, Out(D::kLongDouble, x));
    EXPECT_EQ(back, x);
  }
}

TEST(External32Test, PairsConvertMemberByMember) {
  // MPI_LONG_INT on the wire: 8-byte long, then int; external32: 4 + 4.
  std::byte wire[12];
  const long value = -7;
  const int index = 5;
  std::memcpy(wire, &value, 8);
  std::memcpy(wire + 8, &index, 4);
  std::vector<std::byte> out(8);
  ToExternal32(D::kLongInt, wire, 1, out.data());
  EXPECT_EQ(out, Bytes({0xff, 0xff, 0xff, 0xf9, 0, 0, 0, 5}));
  std::byte back[12] = {};
  FromExternal32(D::kLongInt, out.data(), 1, back);
  EXPECT_EQ(std::memcmp(back, wire, 12), 0);
}

}  // namespace
}  // namespace bdmpi
