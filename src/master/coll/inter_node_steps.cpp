#include "master/coll/inter_node_steps.h"

#include "collectives/collectives.h"
#include "common/datatype.h"
#include "common/error.h"
#include "common/reduce.h"
#include "master/network/network.h"

namespace bdmpi {
namespace {

// The step's predefined operation on its predefined datatype, applied to
// whole elements in their wire form (datatype.h).
coll::Reduction ReductionOf(const CollectiveStep& step) {
  const DatatypeInfo* info = FindPredefinedDatatype(step.datatype);
  BDMPI_ENFORCE(info != nullptr, "reduction on an unknown datatype");
  std::size_t element = info->size;
  OpId op = step.op;
  DatatypeId type = step.datatype;
  coll::Reduction reduction;
  reduction.fn = [op, type, element](const std::byte* in, std::byte* inout, std::size_t bytes) {
    Reduce(op, type, in, inout, bytes / element);
  };
  reduction.element_bytes = element;
  reduction.commutative = true;  // every predefined operation is
  return reduction;
}

}  // namespace

std::unique_ptr<coll::Operation> StartBarrierStep(const StepStart& start) {
  return coll::StartBarrier(start.transport, start.tag);
}

std::unique_ptr<coll::Operation> StartBcastStep(const StepStart& start) {
  return coll::StartBcast(start.transport, start.tag, start.data, start.step.root, start.racks,
                          start.tuning);
}

std::unique_ptr<coll::Operation> StartReduceStep(const StepStart& start) {
  return coll::StartReduce(start.transport, start.tag, start.data, ReductionOf(start.step),
                           start.step.root, start.racks, start.tuning);
}

std::unique_ptr<coll::Operation> StartAllreduceStep(const StepStart& start) {
  return coll::StartAllreduce(start.transport, start.tag, start.data, ReductionOf(start.step),
                              start.tuning);
}

std::unique_ptr<coll::Operation> StartSplitStep(const StepStart& start) {
  return coll::StartAllgatherv(start.transport, start.tag, start.data, start.step.block_bytes,
                               start.tuning);
}

}  // namespace bdmpi
