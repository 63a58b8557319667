// The one place where the slave chooses how a payload travels to its
// master and on to its receiver (docs/data-path.md, "Paths"): every
// message a rank sends and every payload it hands the master asks
// ChooseSendPath, and Runtime::SendMessage / Runtime::StagePayload take
// the path it names. The master carries out what the slave chose; it
// refuses only what it must (a placement whose receive is not posted, a
// payload its memory has no room for, a lent block that must not stay).
//
// Some facts are learnt only by trying: the master refuses a placement,
// a block to lend has an unreadable page, every payload segment is busy.
// The caller then asks again with that fact set, and the function names
// the next path; the answer for given facts never changes.
#pragma once

#include <cstdint>

namespace bdmpi {

enum class SendPath : std::uint8_t {
  kDirect,   // written by the sender into a receive the receiver has
             // published, without the master (slave/p2p/direct_path.h)
  kEmpty,    // no payload: the request alone
  kInline,   // inside the request message
  kWindow,   // the slave's shared window; the master places a standard
             // send's straight into its receive when that is posted
  kPlaced,   // written by the sender into the posted receive, after the
             // master granted it (Runtime::Place)
  kLent,     // stays in the sender's memory; the receiver reads it
  kSegment,  // one of the sender's payload segments (a memory file)
  kSpill,    // a spill file the sender writes
};

// What the payload belongs to, as far as its path is concerned.
enum class SendKind : std::uint8_t {
  // MPI_Send, MPI_Isend, MPI_Send_init, MPI_Rsend: may be placed.
  kStandard,
  // A synchronous or buffered send: it needs the master's notice of its
  // match, which a placed message does not give.
  kMatchNotice,
  // A collective's message copied out of a staging buffer, or to another
  // node: the collective's own protocol, never placed.
  kCollective,
  // A collective's block in the user's own buffer, which the program may
  // not touch until the operation completes: may be lent.
  kCollectiveBlock,
  // Not a message: a collective's contribution to the master, receive ids.
  kRequestData,
};

// Why a path was chosen (SendReasonText): the rows of the table in
// docs/data-path.md, "Paths".
enum class SendReason : std::uint8_t {
  kReceiveMayBePublished,  // direct: try the receiver's published receives
  kNoPayload,
  kFitsInline,
  kFitsWindow,
  kReceiveMayBePosted,  // placed: ask the master
  kPlaceBackingOff,     // not placed: recent offers to this rank were refused
  kBlockStaysPut,       // lent
  kLargerThanWindow,    // a segment
  kNoMemoryDirectory,   // a spill file: --memory-payloads off
  kNoFreeSegment,       // a spill file: every segment busy, or tmpfs full
};

const char* SendPathName(SendPath path);
const char* SendReasonText(SendReason reason);

// The rank's settings, decided at its start (Runtime::Connect); placing
// turns off for good when the kernel refuses a write.
struct SendSettings {
  std::uint64_t window = 0;           // the window's size
  bool memory_payloads = false;       // a memory directory: payload segments
  bool lending = false;               // LendingAllowed(): --single-copy and Yama
  bool placing = false;               // lending, and not --placed-messages off
  std::uint64_t place_min_bytes = 0;  // above the window, or the option's size
  bool direct = false;                // direct messages (--direct-max, Yama)
  std::uint64_t direct_max_bytes = 0; // --direct-max
};

// What is known of one send.
struct SendFacts {
  std::uint64_t bytes = 0;
  SendKind kind = SendKind::kRequestData;
  // The receiver runs on this node (its master can read and write this
  // rank's memory).
  bool dest_on_node = true;
  // The master refused recent placements to this receiver (PlaceBackoff):
  // skip asking this time.
  bool place_backing_off = false;
  // Learnt by trying; the caller asks again with the fact set.
  bool direct_refused = false;    // no published receive took it
  bool place_refused = false;     // the master said no, or the write failed
  bool unreadable = false;        // a page of the block to lend is not readable
  bool no_free_segment = false;   // every payload segment is busy (or tmpfs full)
};

struct SendChoice {
  SendPath path;
  SendReason reason;
  // It would have been placed but for place_backing_off: it uses up one of
  // the sends to skip.
  bool skipped_placing = false;
};

SendChoice ChooseSendPath(const SendFacts& facts, const SendSettings& settings);

}  // namespace bdmpi
