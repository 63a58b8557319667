// The inter-node step of each collective the masters run, started on the
// network thread (NetworkTransport::StartStep) from the message table's row.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "collectives/operation.h"
#include "collectives/select.h"
#include "collectives/transport.h"

namespace bdmpi {

struct CollectiveStep;

struct StepStart {
  coll::Transport& transport;
  int tag;
  std::span<std::byte> data;
  const CollectiveStep& step;
  std::span<const int> racks;  // of the step's nodes, in group order
  const coll::Tuning& tuning;
};

using InterNodeStepStarter = std::unique_ptr<coll::Operation> (*)(const StepStart&);

std::unique_ptr<coll::Operation> StartBarrierStep(const StepStart& start);
std::unique_ptr<coll::Operation> StartBcastStep(const StepStart& start);
std::unique_ptr<coll::Operation> StartReduceStep(const StepStart& start);
std::unique_ptr<coll::Operation> StartAllreduceStep(const StepStart& start);
// Comm split: an allgather of every master's SplitEntry records.
std::unique_ptr<coll::Operation> StartSplitStep(const StepStart& start);

}  // namespace bdmpi
