#include "common/protocol.h"

#include <cstring>

namespace bdmpi {

const char* MsgTypeName(MsgType type) {
  switch (type) {
    case MsgType::kInit: return "Init";
    case MsgType::kFinalize: return "Finalize";
    case MsgType::kAbort: return "Abort";
    case MsgType::kEvent: return "Event";
    case MsgType::kSend: return "Send";
    case MsgType::kPostRecv: return "PostRecv";
    case MsgType::kWaitRecv: return "WaitRecv";
    case MsgType::kTestRecv: return "TestRecv";
    case MsgType::kProbe: return "Probe";
    case MsgType::kIprobe: return "Iprobe";
    case MsgType::kWaitAny: return "WaitAny";
    case MsgType::kTestAny: return "TestAny";
    case MsgType::kPollAny: return "PollAny";
    case MsgType::kTestAll: return "TestAll";
    case MsgType::kFreeRecv: return "FreeRecv";
    case MsgType::kBarrier: return "Barrier";
    case MsgType::kBcast: return "Bcast";
    case MsgType::kReduce: return "Reduce";
    case MsgType::kAllreduce: return "Allreduce";
    case MsgType::kEnterCritical: return "EnterCritical";
    case MsgType::kExitCritical: return "ExitCritical";
    case MsgType::kCommSplit: return "CommSplit";
    case MsgType::kCommFree: return "CommFree";
    case MsgType::kRelease: return "Release";
    case MsgType::kReleased: return "Released";
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
