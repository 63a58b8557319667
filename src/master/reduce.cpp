// The master's half of MPI_Reduce and MPI_Allreduce: it reduces the members'
// contributions itself, in rank order, as they arrive. Large contributions
// stay in their spill files and are reduced through mappings, so the master
// never holds a large reduction in its own memory. The slave's half is
// src/slave/coll/reduce.cpp.
#include "common/datatype.h"
#include "common/error.h"
#include "common/reduce.h"
#include "master/master.h"

namespace bdmpi {

void Master::ContributeReduce(Collective& collective, Slave& slave,
                              const RequestMsg& request) {
  collective.contributions[request.rank] =
      payloads_.Take(request, io_->Window(slave.index), inline_payload_);
  FoldContributions(collective);
}

void Master::FoldContributions(Collective& collective) {
  const DatatypeInfo* type =
      FindPredefinedDatatype(static_cast<DatatypeId>(collective.datatype));
  BDMPI_ENFORCE(type != nullptr, "reduction on an unknown datatype");
  std::size_t count = collective.bytes / type->size;  // wire bytes (datatype.h)
  const std::vector<int>& local_ranks = Comm(collective.comm).local_ranks;
  int local = static_cast<int>(local_ranks.size());
  bool spans_nodes = Comm(collective.comm).spans_nodes;
  while (collective.folded < local &&
         collective.contributions[local_ranks[collective.folded]]) {
    Payload& next = *collective.contributions[local_ranks[collective.folded]];
    if (collective.folded == 0) {
      // The first local contribution becomes the accumulator, in place.
      collective.result = std::move(next);
      if (collective.result.on_disk() && collective.bytes > 0) {
        collective.result.Pin();  // written through a mapping from now on
        // The inter-node step reads it through accumulator_map; on one
        // node a kept mapping of a slave's segment serves.
        if (spans_nodes || payloads_.KeptMapping(collective.result, collective.bytes) == nullptr)
          collective.accumulator_map.emplace(
              payloads_.Map(collective.result, collective.bytes, /*writable=*/true));
      }
    } else if (count > 0) {
      std::byte* accumulator = collective.result.memory().data();
      if (collective.result.on_disk()) {
        accumulator = collective.accumulator_map
                          ? collective.accumulator_map->data()
                          : payloads_.KeptMapping(collective.result, collective.bytes);
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
    collective.contributions[local_ranks[collective.folded]].reset();  // unlinks its file
    ++collective.folded;
  }
  payloads_.TrimKeptMappings();
  // Across nodes the mapping is still needed for the inter-node step.
  if (collective.folded == local && !spans_nodes)
    collective.accumulator_map.reset();
}

}  // namespace bdmpi
