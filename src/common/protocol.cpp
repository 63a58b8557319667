#include "common/protocol.h"

#include <cstring>

namespace bdmpi {

const char* MsgTypeName(MsgType type) {
  switch (type) {
#define BDMPI_MSG_NAME(name, value) \
  case MsgType::k##name:            \
    return #name;
    BDMPI_MSG_TYPES(BDMPI_MSG_NAME)
#undef BDMPI_MSG_NAME
  }
  return "?";
}

void RequestBatch::Append(const RequestMsg& request, const void* inline_payload) {
  std::memcpy(bytes_ + size_, &request, sizeof request);
  if (request.where == Where::kInline && request.bytes > 0)
    std::memcpy(bytes_ + size_ + sizeof request, inline_payload, request.bytes);
  size_ += RecordSize(request);
}

}  // namespace bdmpi
