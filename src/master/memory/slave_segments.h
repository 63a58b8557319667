// The master's side of the slaves' payload segments
// (common/payload_segments.h): their flags files, and the memory of the
// free ones. A free segment keeps its warm pages, so that the next large
// send costs one copy into them (up to kMaxSegments x the largest message
// per slave); those pages count against the node budget like held
// messages, and the master gives them back (punches them out and marks the
// segment free-emptied: the slave reserves it again before its next use)
// when the budget needs room, before any held message goes to disk or any
// slave is switched out, and when their slave has exited (then the files
// go too). A segment is counted with its message while the master holds
// it (PayloadStore charges its allocated pages), and here from the moment
// the last holder lets go.
//
// Thread-safe where it must be: the last holder of a message may be the
// network thread, so Released runs on any thread; the rest on the event loop.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "common/payload_segments.h"
#include "common/spill_dir.h"

namespace bdmpi {

class SlaveSegments {
 public:
  // Creates the flags files of slaves 0..slaves-1 in `dir` (the node's
  // memory directory), before the slaves start. `dir` must outlive this.
  void Create(const SpillDir* dir, int slaves);
  bool empty() const { return slaves_.empty(); }

  // Whether `file_id` names a segment of one of the slaves.
  bool IsSegment(std::uint64_t file_id) const;
  // The segment's message was taken by the master: its pages count with
  // the message from now on, not as idle.
  void Taken(std::uint64_t file_id);
  // The last holder of the segment's message let go: it is free again,
  // with `resident` bytes of warm pages (`emptied`: none, they were
  // punched when the message moved to disk). A segment of a slave that
  // has exited goes instead.
  void Released(std::uint64_t file_id, std::uint64_t resident, bool emptied);

  // Bytes of warm pages of the free segments.
  std::uint64_t idle_bytes() const { return idle_bytes_.load(std::memory_order_relaxed); }
  // Gives back the pages of free segments, those with most first, until
  // `wanted` bytes are freed or none is left; returns the bytes freed.
  std::uint64_t Trim(std::uint64_t wanted);
  // Slave `owner` has exited: its free segments go now (pages and files),
  // its busy ones when their message is let go.
  void Retire(std::uint64_t owner);
  // Bytes given back so far by Trim and Retire.
  std::uint64_t trimmed() const { return trimmed_.load(std::memory_order_relaxed); }

 private:
  struct Slave {
    explicit Slave(MappedFile flags_file) : flags(std::move(flags_file)) {}
    MappedFile flags;
    std::array<std::atomic<std::uint64_t>, kMaxSegments> idle{};  // warm bytes while free
    std::atomic<bool> retired{false};
  };
  std::atomic_ref<std::uint32_t> Flag(std::uint64_t owner, int index) const;
  // Claims free segment (owner, index) from `state` and gives its pages
  // back (and its file, once retired); returns the idle bytes freed, or -1
  // if the slave claimed it first.
  std::int64_t GiveBack(std::uint64_t owner, int index, std::uint32_t state, bool remove);

  const SpillDir* dir_ = nullptr;
  std::vector<std::unique_ptr<Slave>> slaves_;  // by slave index
  std::atomic<std::uint64_t> idle_bytes_{0};
  std::atomic<std::uint64_t> trimmed_{0};
};

}  // namespace bdmpi
