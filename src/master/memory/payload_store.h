// The master's half of the payload hand-over; the slave's half is
// Runtime::StagePayload / FetchPayload (src/slave/runtime/runtime.cpp). A slave
// stages a request's payload inline, in its window, in a memory file or in
// a spill file; the master takes it into a Payload it holds (window
// payloads: memory while its budget lasts, else a spill file of its own;
// memory files: kept while the node's memory has room, else copied to a
// spill file) and gives held payloads back in replies (the window, or a
// memory or spill file named by id and inode). Memory files it holds
// move to spill files when the node needs their memory
// (MoveMemoryFilesToDisk). A block a slave lends (Where::kLent) stays in
// the slave's memory; the store names it in a reply, or copies it into a
// file when it must not stay there (Materialize). It owns the node's spill and memory directories
// and the budget every held payload is charged to, so it must outlive
// every Payload it made.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "common/protocol.h"
#include "common/spill_dir.h"
#include "master/memory/payload.h"
#include "master/memory/segment_mappings.h"
#include "master/memory/slave_segments.h"

namespace bdmpi {

class PayloadStore {
 public:
  // `window_size`: every slave's window, the largest payload kept in
  // memory; `memory_budget`: the bytes of payload held in memory at most.
  PayloadStore(std::size_t window_size, std::size_t memory_budget);

  // The node's spill directory, once created (Master::Start).
  void SetSpillDir(SpillDir dir) { spill_dir_ = std::move(dir); }
  const SpillDir& spill_dir() const { return spill_dir_; }
  // The node's memory directory (tmpfs), if the master could create one,
  // and whether a memory file of `bytes` more fits the node's budget
  // (without them, every large payload goes to a spill file).
  void SetMemoryDir(SpillDir dir) { memory_dir_ = std::move(dir); }
  // Creates the flags files of the payload segments of slaves 0..slaves-1
  // (common/payload_segments.h), before the slaves start.
  void CreateSegmentFlags(int slaves);
  const SpillDir& memory_dir() const { return memory_dir_; }
  bool has_memory_dir() const { return !memory_dir_.path().empty(); }
  void SetMemoryRoom(std::function<bool(std::uint64_t bytes)> room) {
    memory_room_ = std::move(room);
  }
  // Bytes of the memory files held now (any thread may drop one).
  std::uint64_t memory_file_bytes() const {
    return memory_file_bytes_.load(std::memory_order_relaxed);
  }
  // Moves held memory files, oldest first, to spill files until `wanted`
  // bytes are freed; skips those a slave may be reading (handed out in a
  // reply) or the network thread sends. Returns the bytes freed.
  std::uint64_t MoveMemoryFilesToDisk(std::uint64_t wanted);
  // Bytes of memory files moved to disk so far (at arrival or later).
  std::uint64_t moved_to_disk() const { return moved_to_disk_; }
  // Of those, moved by MoveMemoryFilesToDisk (after they had been held).
  std::uint64_t moved_while_held() const { return moved_while_held_; }
  const MemoryBudget& budget() const { return budget_; }
  std::size_t window_size() const { return window_size_; }

  // The payload of a slave's request, from where the slave staged it:
  // `inline_data` (the request's inline bytes) or `window` (the sender's)
  // are copied; a spill file the slave wrote is checked and adopted.
  Payload Take(const RequestMsg& request, const std::byte* window,
               const std::byte* inline_data);
  // Copies the first `bytes` bytes of a request's payload to `out` without
  // keeping it (a spill file is unlinked once read).
  void Read(const RequestMsg& request, const std::byte* window, const std::byte* inline_data,
            void* out, std::size_t bytes);
  // A request's payload read as a list of ids (receive ids, members).
  std::vector<std::uint64_t> ReadIds(const RequestMsg& request, const std::byte* window,
                                     const std::byte* inline_data) {
    std::vector<std::uint64_t> ids(request.bytes / sizeof(std::uint64_t));
    Read(request, window, inline_data, ids.data(), ids.size() * sizeof(std::uint64_t));
    return ids;
  }
  // Puts min(payload.bytes(), capacity) bytes of `payload` in `reply`,
  // where the slave's FetchPayload looks: copied into its `window`, or the
  // spill file named, which `held_files` keeps until the slave has read it.
  void Give(const Payload& payload, std::uint64_t capacity, std::byte* window,
            ReplyMsg& reply, std::vector<std::shared_ptr<OwnedFile>>& held_files) const;

  // A payload of master-made data (memory if it fits, else a spill file).
  Payload Store(std::vector<std::byte> data);
  // A zero-filled payload of `bytes` the master fills in place (a result
  // received from other nodes): memory if it fits, else a spill file with
  // its disk reserved, mapped writable into `map`.
  Payload Allocate(std::uint64_t bytes, std::optional<MappedFile>& map);
  // A memory file the network thread wrote (a message from another node):
  // held in memory, or moved to a spill file when the node's memory is short.
  // `resident`: the pages it holds, charged when more than `bytes` (a
  // slave's segment).
  Payload AdoptIncoming(std::uint64_t file_id, std::uint64_t inode, std::uint64_t bytes,
                        std::uint64_t resident = 0);
  // A spill file of this directory written by another part of the master
  // (the network thread), with the inode it recorded.
  Payload Adopt(std::uint64_t file_id, std::uint64_t inode, std::uint64_t bytes) const;
  // Maps the spill file of `payload`, checked to be the file that was
  // written (same inode): a swapped file throws Error(kErrIo).
  MappedFile Map(const Payload& payload, std::uint64_t bytes, bool writable) const;
  // The first `bytes` of `payload`, writable, through a mapping kept from
  // one call to the next, if it lies in a slave's payload segment
  // (master/memory/segment_mappings.h); null for any other payload (use Map). The
  // pointer stays valid until TrimKeptMappings.
  std::byte* KeptMapping(const Payload& payload, std::uint64_t bytes) {
    return segment_mappings_.Find(payload, bytes);
  }
  void TrimKeptMappings() { segment_mappings_.Trim(); }

  // Lent blocks (master/p2p/lent_block.h). The payload of a Send whose block
  // slave `lender` (process `pid`, world rank `rank`) lent.
  Payload Lend(const LentSendArgs& lent, pid_t pid, int lender, int rank);
  // Hands a lent payload to its receiver: `reply` names the block, `held`
  // keeps it from going back until the receiver's next request.
  void GiveLent(Payload& payload, ReplyMsg& reply, std::shared_ptr<LentBlock>& held);
  // Copies a lent block into a file of the master's (a memory file while
  // the node has room, else a spill file).
  // `lead` bytes before the copy in its file (Materialize's owed copies).
  Payload CopyLent(const LentBlock& block, std::uint64_t lead = 0);
  // Copies a lent payload into a file of the master's: from then on it is
  // an ordinary message, and the block goes back to its sender.
  void Materialize(const Payload& payload);
  // Materializes the lent payloads no receiver was handed yet whose
  // lender `which` accepts; returns how many.
  template <class Which>
  std::size_t MaterializeLent(Which which) {
    std::size_t copied = 0;
    for (std::weak_ptr<PayloadFile>& held : lent_files_) {
      std::shared_ptr<PayloadFile> file = held.lock();
      if (file != nullptr && file->lent != nullptr && which(file->lent->lender)) {
        Materialize(file);
        ++copied;
      }
    }
    ForgetReturnedLent();
    return copied;
  }
  // Lent blocks copied so far (CopyLent, Materialize).
  std::uint64_t lent_copied() const { return lent_copied_; }

  // Copies kept for a sender being switched out (docs/scheduling-and-
  // memory.md, "Lent send buffers"): while `lender` (a slave index, -1:
  // none) is set, Materialize also keeps each copy it makes of that
  // slave's blocks, whose pages its write-back then skips and its
  // RestoreLent reads back.
  void OweCopiesTo(int lender) { owing_ = lender; }
  // The Release's list of the blocks owed to `lender` that no Release has
  // named yet (a spill file this store keeps until DropOwedList); count 0
  // when none.
  ReleaseArgs ListOwed(int lender, std::uint64_t step);
  void DropOwedList(int lender) { owed_lists_.erase(lender); }
  // The copy of the block at `address` owed to `lender`, no longer kept by
  // the store (nullopt: none); `mapped`: one KeepOwedMapped kept.
  std::optional<Payload> TakeOwed(int lender, std::uint64_t address, bool mapped = false);
  // Keeps the copy of the block at `address` owed to `lender` while the
  // lender maps it (RestoreLent with `map`), in the file it is in now,
  // until TakeOwed(..., true) or ForgetOwed; null: none.
  const Payload* KeepOwedMapped(int lender, std::uint64_t address);
  // Everything owed to a slave that has exited.
  void ForgetOwed(int lender) {
    owed_.erase(lender);
    owed_lists_.erase(lender);
  }
  // Whether a receiver may be reading a block slave `lender` lent.
  bool LentInHand(int lender) const;
  // The blocks that went back to their senders since the last call.
  std::vector<LentReturn> TakeLentReturns() { return std::exchange(lent_returns_, {}); }

  // The warm pages of the slaves' free payload segments, charged to the
  // node budget with the memory files (master/memory/slave_segments.h); given
  // back, largest first, until `wanted` bytes are freed (returned).
  std::uint64_t idle_segment_bytes() const { return segments_.idle_bytes(); }
  std::uint64_t TrimIdleSegments(std::uint64_t wanted) { return segments_.Trim(wanted); }
  // Bytes of idle segments given back so far (trimmed or retired).
  std::uint64_t trimmed_segment_bytes() const { return segments_.trimmed(); }
  // Slave `owner` has exited: its segments go (the free ones now, the
  // busy ones with their message) and so do the master's mappings of them.
  void RetireSegments(std::uint64_t owner);

 private:
  std::uint64_t NewFileId() { return MakeFileId(kMasterFileOwner, ++file_seq_); }
  // `bytes` of `data` in a new spill file of the master's.
  Payload Spill(const void* data, std::uint64_t bytes);
  // A memory file a slave wrote: held in memory, or copied to a spill
  // file when the node's memory is short.
  Payload TakeMemoryFile(const RequestMsg& request);
  // A memory file of `bytes`, charged to memory_file_bytes_ and listed for
  // MoveMemoryFilesToDisk. A slave's payload segment is given back to it
  // (its flag cleared) when the last holder lets go; any other memory file
  // is unlinked then.
  Payload AdoptMemoryFile(std::uint64_t file_id, std::uint64_t inode, std::uint64_t bytes,
                          std::uint64_t resident = 0);
  // `resident`: a segment's pages, idle once the last holder lets go.
  std::shared_ptr<OwnedFile> OwnMemoryFile(std::uint64_t file_id, std::uint64_t inode,
                                           std::uint64_t resident);
  // Copies memory file `file` to a new spill file and points `file` there
  // (a segment's memory is given back to the system too).
  void MoveToDisk(PayloadFile& file);
  void Materialize(const std::shared_ptr<PayloadFile>& file);
  // Drops from lent_files_ the blocks handed out or gone.
  void ForgetReturnedLent();
  const SpillDir& SourceDir(Where where) const {
    return where == Where::kMemoryFile ? memory_dir_ : spill_dir_;
  }

  std::size_t window_size_;
  MemoryBudget budget_;
  SpillDir spill_dir_;
  SpillDir memory_dir_;
  std::function<bool(std::uint64_t)> memory_room_ = [](std::uint64_t) { return true; };
  std::atomic<std::uint64_t> memory_file_bytes_{0};
  std::vector<std::weak_ptr<PayloadFile>> memory_files_;  // oldest first
  SlaveSegments segments_;
  std::uint64_t moved_to_disk_ = 0;
  std::uint64_t moved_while_held_ = 0;
  std::uint64_t file_seq_ = 0;
  SegmentMappings segment_mappings_;
  // Where LentBlocks report going back; their holders (mailboxes, slaves)
  // are the Master's members after this store, so they go first.
  std::vector<LentReturn> lent_returns_;
  std::vector<std::weak_ptr<PayloadFile>> lent_files_;    // not yet handed out
  std::vector<std::weak_ptr<LentBlock>> handed_out_;  // to a receiver
  std::uint64_t lent_copied_ = 0;
  // A copy kept for its sender, by the block's address there.
  struct OwedCopy {
    std::uint64_t address;
    Payload copy;
    bool listed = false;  // named in a Release already (one before a read-ahead)
    std::shared_ptr<OwnedFile> mapping;  // set while the lender maps the copy
  };
  // The copy of the block at `address` owed to `lender` that the lender
  // maps (`mapped`) or does not; null: none.
  OwedCopy* FindOwed(int lender, std::uint64_t address, bool mapped);
  int owing_ = -1;
  std::map<int, std::vector<OwedCopy>> owed_;  // by slave index
  std::map<int, Payload> owed_lists_;          // the Release's list file
};

}  // namespace bdmpi
