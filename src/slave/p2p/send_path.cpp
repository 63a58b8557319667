// The choice of a send's path; see send_path.h and docs/data-path.md,
// "Paths", whose table lists the same rules in the same order.
#include "slave/p2p/send_path.h"

#include "common/protocol.h"

namespace bdmpi {

SendChoice ChooseSendPath(const SendFacts& facts, const SendSettings& settings) {
  const std::uint64_t bytes = facts.bytes;
  if (facts.kind == SendKind::kStandard && settings.direct && facts.dest_on_node &&
      bytes <= settings.direct_max_bytes && !facts.direct_refused)
    return {SendPath::kDirect, SendReason::kReceiveMayBePublished};
  if (bytes == 0) return {SendPath::kEmpty, SendReason::kNoPayload};
  if (bytes <= kInlinePayloadMax) return {SendPath::kInline, SendReason::kFitsInline};
  if (bytes <= settings.window) return {SendPath::kWindow, SendReason::kFitsWindow};
  // Larger than the window. Placing and lending need the receiver's master
  // to be this rank's: it grants the placement, it reads the block.
  bool may_place = facts.kind == SendKind::kStandard && settings.placing && facts.dest_on_node &&
                   bytes >= settings.place_min_bytes && !facts.place_refused;
  if (may_place && !facts.place_backing_off)
    return {SendPath::kPlaced, SendReason::kReceiveMayBePosted};
  if (facts.kind == SendKind::kCollectiveBlock && settings.lending && facts.dest_on_node &&
      !facts.unreadable)
    return {SendPath::kLent, SendReason::kBlockStaysPut};
  SendChoice staged{SendPath::kSegment, SendReason::kLargerThanWindow, may_place};
  if (!settings.memory_payloads) {
    staged = {SendPath::kSpill, SendReason::kNoMemoryDirectory, may_place};
  } else if (facts.no_free_segment) {
    staged = {SendPath::kSpill, SendReason::kNoFreeSegment, may_place};
  } else if (may_place) {
    staged.reason = SendReason::kPlaceBackingOff;
  }
  return staged;
}

const char* SendPathName(SendPath path) {
  switch (path) {
    case SendPath::kDirect: return "direct";
    case SendPath::kEmpty: return "empty";
    case SendPath::kInline: return "inline";
    case SendPath::kWindow: return "window";
    case SendPath::kPlaced: return "placed";
    case SendPath::kLent: return "lent";
    case SendPath::kSegment: return "segment";
    case SendPath::kSpill: return "spill";
  }
  return "?";
}

const char* SendReasonText(SendReason reason) {
  switch (reason) {
    case SendReason::kReceiveMayBePublished:
      return "a small standard send to this node: its receive may be published";
    case SendReason::kNoPayload: return "no payload";
    case SendReason::kFitsInline: return "fits in the request message";
    case SendReason::kFitsWindow: return "fits in the window";
    case SendReason::kReceiveMayBePosted:
      return "a standard send above the window to this node: its receive may be posted";
    case SendReason::kPlaceBackingOff:
      return "recent placements to this rank were refused: not asking this time";
    case SendReason::kBlockStaysPut:
      return "a collective's block in the user's buffer, to this node: lent";
    case SendReason::kLargerThanWindow: return "larger than the window";
    case SendReason::kNoMemoryDirectory: return "no memory directory (--memory-payloads off)";
    case SendReason::kNoFreeSegment: return "no free payload segment";
  }
  return "?";
}

}  // namespace bdmpi
