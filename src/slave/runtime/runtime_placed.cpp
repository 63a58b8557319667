// The slave's half of placed messages (master/p2p/placed.cpp): a large send
// whose receive is already posted on this node is written straight into
// the receive buffer with process_vm_writev: one copy instead of two, as
// Open MPI's single-copy transfer (CMA) does.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/job_names.h"
#include "common/log.h"
#include "common/process_memory.h"
#include "common/test_hooks.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

// A message in the window is placed by the master when its receive is
// posted; every larger one, the sender asks to place (ChooseSendPath). At 128 KiB a placed
// message took 0.7-0.75 of the time of one through a segment (osu_bw and
// a ping-pong, -nr 1 and 2), but a refused offer costs a round trip to the
// master (about 10 us, +70% at 128 KiB when the receives are never posted
// first): so a sender whose offers to a rank find no receive posted asks
// that rank less and less often (PlaceBackoff). After refusals in a row it
// skips 1, 3, 7, then at most this many large sends to that rank: a pattern
// that turns to posting first (osu_bw after its first window) loses at
// most this many placements.
constexpr std::uint32_t kMaxPlaceSkips = 15;

}  // namespace

void Runtime::StartPlacing() {
  // --single-copy off, or a Yama that forbids it, turns placing off as it
  // does lending (lending_, decided in Connect before this); so does
  // BDMPI_PLACED_MESSAGES=off.
  const char* setting = std::getenv(kEnvPlacedMessages);
  placing_ = lending_ && (setting == nullptr || std::strcmp(setting, "off") != 0);
  // A number sets the smallest message a sender places (tests); by
  // default, any above the window.
  std::uint64_t min_bytes = 0;
  if (placing_ && setting != nullptr && *setting != '\0') {
    char* end = nullptr;
    unsigned long long value = std::strtoull(setting, &end, 10);
    if (*end == '\0') min_bytes = value;
  }
  place_min_bytes_ = std::max<std::uint64_t>(window_.size() + 1, min_bytes);
}

bool Runtime::Place(const void* data, std::uint64_t bytes, const RequestMsg& request, int dest) {
  // ChooseSendPath asked for this: a standard send above place_min_bytes_
  // to a rank of this node, while this rank places and is not backing off
  // from `dest` (SendMessage used up a skip otherwise).
  PlaceBackoff& backoff = place_backoff_[dest];
  RequestMsg offer = request;
  offer.type = MsgType::kPlaceOffer;
  offer.where = Where::kNone;
  offer.bytes = bytes;
  PlaceGrant grant = PlaceGrant::Of(Call(offer));
  if (!grant.granted) {  // as usual
    if (grant.retry_later) {
      backoff.next = std::min(2 * backoff.next + 1, kMaxPlaceSkips);
      backoff.skip = backoff.next;
    }
    return false;
  }
  backoff.next = 0;
  int error = test_hooks::PlaceWriteErrno();
  if (error == 0)
    error = WriteProcessMemory(static_cast<pid_t>(grant.receiver_pid), grant.address, data, bytes);
  RequestMsg done = request;
  done.type = MsgType::kPlaced;
  done.where = Where::kNone;
  done.bytes = bytes;
  PlacedArgs{error}.Into(done);
  // With one running rank the news may wait for this rank's next blocking
  // call: the receiver cannot run before it anyway.
  Post(done);
  if (error == EPERM || error == ENOSYS) {
    BDMPI_DEBUG("p2p", "writing into another rank's memory is not allowed here (%s): "
                "messages go through the master from now on", std::strerror(error));
    placing_ = false;
  }
  return error == 0;
}

std::uint64_t Runtime::PlaceableAddress(void* buffer, std::uint64_t capacity,
                                        bool dense) const {
  // From the window's sizes up: the master places those (from the window).
  if (!placing_ || !dense || capacity <= kInlinePayloadMax) return 0;
  return reinterpret_cast<std::uint64_t>(buffer);
}

}  // namespace bdmpi
