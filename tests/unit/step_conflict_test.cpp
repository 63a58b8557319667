#include "master/network/step_conflict.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/protocol.h"

namespace bdmpi {
namespace {

StepSignature Bcast(int root) { return {static_cast<std::int32_t>(MsgType::kBcast), root, 64}; }

void AddStep(ControlMsg& state, int comm, std::uint64_t seq, StepSignature signature,
             bool active = true) {
  StepRef& ref = state.steps[state.nsteps++];
  ref.comm = comm;
  ref.seq = seq;
  ref.group_size = 3;
  ref.active = active ? 1 : 0;
  ref.signature = signature;
}

std::vector<ControlMsg> States(int nodes) {
  std::vector<ControlMsg> states(static_cast<std::size_t>(nodes));
  for (ControlMsg& state : states) state.kind = ControlKind::kState;
  return states;
}

TEST(StepConflict, NoneWhenEveryNodeAgrees) {
  std::vector<ControlMsg> states = States(3);
  for (ControlMsg& state : states) AddStep(state, 0, 7, Bcast(0));
  AddStep(states[1], 0, 6, Bcast(2), /*active=*/false);  // another step: no conflict
  EXPECT_FALSE(FindStepConflict(states).has_value());
}

// Node 0 takes itself for the root; nodes 1 and 2 agree on root 2, and one
// of them has finished the step already.
TEST(StepConflict, NamesTheFirstNodeThatDisagrees) {
  std::vector<ControlMsg> states = States(3);
  AddStep(states[0], 0, 7, Bcast(0));
  AddStep(states[1], 0, 7, Bcast(2), /*active=*/false);
  AddStep(states[2], 0, 7, Bcast(2));
  std::optional<StepConflict> conflict = FindStepConflict(states);
  ASSERT_TRUE(conflict.has_value());
  EXPECT_EQ(conflict->comm, 0);
  EXPECT_EQ(conflict->seq, 7u);
  EXPECT_EQ(conflict->first_node, 0);
  EXPECT_EQ(conflict->first.root, 0);
  EXPECT_EQ(conflict->second_node, 1);
  EXPECT_EQ(conflict->second.root, 2);
}

// The same sequence number on another communicator is another step; a
// node whose answer is missing (not a kState) is skipped.
TEST(StepConflict, StepsAreKeyedByCommunicatorAndSequence) {
  std::vector<ControlMsg> states = States(3);
  AddStep(states[0], 0, 7, Bcast(0));
  AddStep(states[1], 5, 7, Bcast(1));
  states[2].kind = ControlKind::kAbort;
  AddStep(states[2], 0, 7, Bcast(2));
  EXPECT_FALSE(FindStepConflict(states).has_value());
}

}  // namespace
}  // namespace bdmpi
