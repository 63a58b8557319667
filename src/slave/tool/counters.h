// This rank's slot of the node's storage table (common/storage_table.h),
// where the master counts the run report's figures for the rank and the
// rank counts its switch-outs: what the tool interface's performance
// variables read.
#pragma once

#include "common/storage_table.h"

namespace bdmpi::tool {

// The slot, mapped on first use from the environment bdmprun gives a rank;
// nullptr outside a job (no table): the counters then read 0.
StorageSlot* RankSlot();

// A switch-out that wrote `bytes` back (slave/runtime/runtime.cpp).
void CountSwitchOut(std::uint64_t bytes);
// A message of `bytes` this rank wrote into another's receive
// (slave/p2p/direct_path.h), which the master never sees.
void CountDirectSend(std::uint64_t bytes);

// The tests in a row that found nothing new so far (slave/request/
// completion.cpp), for the master's status of a rank that polls.
void NoteLocalTests(std::uint32_t in_a_row);

// Times the rank gave up its running slot, and the bytes it read back
// eagerly, so far (0 outside a job): the runtime raises the tool events of
// a blocking call from their rise.
std::uint64_t Switches();
std::uint64_t ReadBackBytes();

}  // namespace bdmpi::tool
