// A block a slave lent (Where::kLent, docs/data-path.md "Lent blocks"):
// bytes that stay in the sender's memory until the receiver has read them
// or the master has copied them into a file. When the last holder lets go
// (the message, or the receiver that was handed it), the block goes back:
// its sender's send `send_id` completes (Master::TakeBackLentBlocks).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace bdmpi {

// A block that went back to its sender.
struct LentReturn {
  int lender = 0;  // slave index
  std::uint64_t send_id = 0;
};

struct LentBlock {
  LentBlock(pid_t lender_pid, int lender_index, int lender_rank, std::uint64_t block_address,
            std::uint64_t block_bytes, std::uint64_t id, std::vector<LentReturn>* back)
      : pid(lender_pid),
        lender(lender_index),
        lender_world_rank(lender_rank),
        address(block_address),
        bytes(block_bytes),
        send_id(id),
        returns(back) {}
  LentBlock(const LentBlock&) = delete;
  LentBlock& operator=(const LentBlock&) = delete;
  ~LentBlock() { returns->push_back(LentReturn{lender, send_id}); }

  // Copies the block out of its sender's memory (the master is the
  // slaves' parent, so it may); throws Error when the sender is gone.
  void CopyTo(void* out) const;

  pid_t pid;
  int lender;
  int lender_world_rank;
  std::uint64_t address;
  std::uint64_t bytes;
  std::uint64_t send_id;
  std::vector<LentReturn>* returns;
};

}  // namespace bdmpi
