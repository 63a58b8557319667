// The master's half of MPI_Bcast: the root's data is buffered once (memory
// or spill file) and every other member copies it from there when it runs.
// The slave's half is src/slave/coll/bcast.cpp.
#include "master/coll/collectives.h"
#include "master/message_table.h"

namespace bdmpi {

void Collectives::ContributeBcast(Collective& collective, Slave& slave, const RequestMsg& request,
                                  const std::byte* inline_payload) {
  if (request.rank != collective.root) return;
  BcastState& bcast = std::get<BcastState>(collective.state);
  bcast.result = payloads_.Take(request, master_.Window(slave.index), inline_payload);
  bcast.root_arrived = true;
}

}  // namespace bdmpi
