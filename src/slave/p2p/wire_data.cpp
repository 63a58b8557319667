#include "slave/p2p/wire_data.h"

#include <cstring>

#include "slave/runtime/runtime.h"

namespace bdmpi {

WireData ToWire(const void* buffer, int count, MPI_Datatype datatype) {
  const TypeInfo& type = CommType(count, datatype);
  return ToWire(buffer, count, type, WireBytes(count, datatype));
}

WireData ToWire(const void* buffer, int count, const TypeInfo& type, std::uint64_t bytes) {
  WireData wire;
  wire.bytes = bytes;
  wire.data = buffer;
  if (!type.Dense() && wire.bytes > 0) {
    wire.packed.resize(wire.bytes);
    PackElements(buffer, count, type, wire.packed.data());
    wire.data = wire.packed.data();
  }
  return wire;
}

std::vector<std::byte> WireCopy(const void* buffer, int count, MPI_Datatype datatype) {
  WireData wire = ToWire(buffer, count, datatype);
  if (!wire.packed.empty()) return std::move(wire.packed);
  const std::byte* data = static_cast<const std::byte*>(wire.data);
  return std::vector<std::byte>(data, data + wire.bytes);
}

void WriteWire(const std::vector<std::byte>& wire, void* buffer, int count,
               const TypeInfo* scattered) {
  if (scattered != nullptr) {
    UnpackElements(wire.data(), wire.size(), buffer, count, *scattered);
  } else if (!wire.empty()) {
    std::memcpy(buffer, wire.data(), wire.size());
  }
}

std::shared_ptr<const TypeInfo> ScatteredLayout(MPI_Datatype datatype) {
  const TypeInfo& type = LookupType(datatype);
  if (type.Dense()) return nullptr;
  return std::make_shared<const TypeInfo>(type);
}

void FetchInto(const ReplyMsg& reply, void* buffer, int count, const TypeInfo* scattered,
               std::uint64_t capacity) {
  if (scattered == nullptr) {
    Runtime::Instance()->FetchPayload(reply, buffer, capacity);
    return;
  }
  std::uint64_t received = reply.bytes < capacity ? reply.bytes : capacity;
  std::vector<std::byte> staging(received);
  Runtime::Instance()->FetchPayload(reply, staging.data(), received);
  UnpackElements(staging.data(), received, buffer, count, *scattered);
}

WireSink::WireSink(void* buffer, int count, MPI_Datatype datatype)
    : buffer_(buffer),
      count_(count),
      bytes_(WireBytes(count, datatype)),
      scattered_(ScatteredLayout(datatype)) {
  if (scattered_ != nullptr) staging_.resize(bytes_);
}

void WireSink::Finish() {
  if (scattered_ != nullptr) UnpackElements(staging_.data(), bytes_, buffer_, count_, *scattered_);
}

void CopyElements(const void* send, void* recv, int count, MPI_Datatype datatype) {
  if (send == recv) return;
  WireData wire = ToWire(send, count, datatype);
  const TypeInfo& type = LookupType(datatype);
  if (type.Dense()) {
    if (wire.bytes > 0) std::memmove(recv, send, wire.bytes);
    return;
  }
  UnpackElements(wire.packed.data(), wire.bytes, recv, count, type);
}

}  // namespace bdmpi
