// User buffers of any datatype on their way to and from the master: a
// dense type's buffer goes as is; any other is packed once into one
// contiguous staging buffer (never element by element through the queue)
// and unpacked once on receipt.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/protocol.h"
#include "slave/datatype/datatypes.h"

namespace bdmpi {

// `count` elements of a datatype as wire bytes. Keep it alive until the
// request it was staged for is posted: the runtime may point at `data`.
struct WireData {
  const void* data = nullptr;
  std::uint64_t bytes = 0;
  std::vector<std::byte> packed;  // the staging copy, for a type with gaps
};
WireData ToWire(const void* buffer, int count, MPI_Datatype datatype);
// The same for a type looked up already, whose `bytes` are known.
WireData ToWire(const void* buffer, int count, const TypeInfo& type, std::uint64_t bytes);

// The same, always copied (a reduction's contribution, which the result may
// overwrite).
std::vector<std::byte> WireCopy(const void* buffer, int count, MPI_Datatype datatype);
// Writes wire bytes of `count` elements into `buffer` laid out as
// `scattered` (null: as is).
void WriteWire(const std::vector<std::byte>& wire, void* buffer, int count,
               const TypeInfo* scattered);

// The layout a receive unpacks into, or null when the data goes into the
// buffer as is. A copy: MPI lets the program free the type meanwhile.
std::shared_ptr<const TypeInfo> ScatteredLayout(MPI_Datatype datatype);

// Copies min(reply.bytes, capacity) wire bytes of a reply's payload into
// `count` elements at `buffer` laid out as `scattered` (null: as is).
void FetchInto(const ReplyMsg& reply, void* buffer, int count, const TypeInfo* scattered,
               std::uint64_t capacity);

// Where a receive of `count` elements puts its wire bytes: the buffer itself
// for a dense type, else a staging buffer that Finish() unpacks into it.
class WireSink {
 public:
  WireSink(void* buffer, int count, MPI_Datatype datatype);
  void* data() { return scattered_ == nullptr ? buffer_ : staging_.data(); }
  std::uint64_t bytes() const { return bytes_; }
  // Call once the bytes have arrived.
  void Finish();

 private:
  void* buffer_;
  int count_;
  std::uint64_t bytes_;
  std::shared_ptr<const TypeInfo> scattered_;
  std::vector<std::byte> staging_;
};

// Copies `count` elements from `send` to `recv` (a rank alone, or
// MPI_Sendrecv to itself), through wire bytes when the type has gaps.
void CopyElements(const void* send, void* recv, int count, MPI_Datatype datatype);

}  // namespace bdmpi
