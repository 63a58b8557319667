// The master's half of MPI_Reduce and MPI_Allreduce: it reduces the members'
// contributions itself, in rank order, as they arrive. Large contributions
// stay in their spill files and are reduced through mappings, so the master
// never holds a large reduction in its own memory. The slave's half is
// src/slave/coll/reduce.cpp.
#include "common/datatype.h"
#include "common/error.h"
#include "common/reduce.h"
#include "master/coll/collectives.h"
#include "master/message_table.h"

namespace bdmpi {

void Collectives::ContributeReduce(Collective& collective, Slave& slave, const RequestMsg& request,
                                   const std::byte* inline_payload) {
  ReduceState& reduce = std::get<ReduceState>(collective.state);
  if (reduce.contributions.empty())
    reduce.contributions.resize(Comm(collective.comm).world_ranks.size());
  reduce.contributions[request.rank] =
      payloads_.Take(request, master_.Window(slave.index), inline_payload);
  FoldContributions(collective);
}

void Collectives::FoldContributions(Collective& collective) {
  const DatatypeInfo* type =
      FindPredefinedDatatype(static_cast<DatatypeId>(collective.datatype));
  BDMPI_ENFORCE(type != nullptr, "reduction on an unknown datatype");
  ReduceState& reduce = std::get<ReduceState>(collective.state);
  std::size_t count = collective.bytes / type->size;  // wire bytes (datatype.h)
  const std::vector<int>& local_ranks = Comm(collective.comm).local_ranks;
  int local = static_cast<int>(local_ranks.size());
  bool spans_nodes = Comm(collective.comm).spans_nodes;
  while (reduce.folded < local && reduce.contributions[local_ranks[reduce.folded]]) {
    Payload& next = *reduce.contributions[local_ranks[reduce.folded]];
    if (reduce.folded == 0) {
      // The first local contribution becomes the accumulator, in place.
      reduce.result = std::move(next);
      if (reduce.result.on_disk() && collective.bytes > 0) {
        reduce.result.Pin();  // written through a mapping from now on
        // The inter-node step reads it through accumulator_map; on one
        // node a kept mapping of a slave's segment serves.
        if (spans_nodes || payloads_.KeptMapping(reduce.result, collective.bytes) == nullptr)
          reduce.accumulator_map.emplace(
              payloads_.Map(reduce.result, collective.bytes, /*writable=*/true));
      }
    } else if (count > 0) {
      std::byte* accumulator = reduce.result.memory().data();
      if (reduce.result.on_disk()) {
        accumulator = reduce.accumulator_map
                          ? reduce.accumulator_map->data()
                          : payloads_.KeptMapping(reduce.result, collective.bytes);
      }
      std::optional<MappedFile> in_map;
      const std::byte* in = next.memory().data();
      if (next.on_disk()) {
        in = payloads_.KeptMapping(next, collective.bytes);
        if (in == nullptr) {
          in_map.emplace(payloads_.Map(next, collective.bytes, /*writable=*/false));
          in = in_map->data();
        }
      }
      Reduce(static_cast<OpId>(collective.op), static_cast<DatatypeId>(collective.datatype),
             in, accumulator, count);
    }
    reduce.contributions[local_ranks[reduce.folded]].reset();  // unlinks its file
    ++reduce.folded;
  }
  payloads_.TrimKeptMappings();
  // Across nodes the mapping is still needed for the inter-node step.
  if (reduce.folded == local && !spans_nodes) reduce.accumulator_map.reset();
}

}  // namespace bdmpi
