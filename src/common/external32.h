// The "external32" data representation (MPI-3.1 section 13.5.2) of
// MPI_Pack_external: every predefined element big-endian, in the
// standard's sizes (MPI_LONG is 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE an
// IEEE binary128), whatever the host's. Conversion works element by
// element on the wire form (common/datatype.h: pairs packed).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/handles.h"

namespace bdmpi {

// Bytes of one element of a predefined type in external32.
std::uint64_t External32Size(DatatypeId type);

// `count` elements of `type` from their wire form to external32, and back.
// A value too wide for its external32 size (a long beyond 32 bits) keeps
// its low-order bytes, as MPICH does.
void ToExternal32(DatatypeId type, const std::byte* wire, std::uint64_t count, std::byte* out);
void FromExternal32(DatatypeId type, const std::byte* in, std::uint64_t count, std::byte* wire);

}  // namespace bdmpi
