// The master's half of MPI_Bcast: the root's data is buffered once (memory
// or spill file) and every other member copies it from there when it runs.
// The slave's half is src/slave/coll/bcast.cpp.
#include "master/master.h"

namespace bdmpi {

void Master::ContributeBcast(Collective& collective, Slave& slave,
                             const RequestMsg& request) {
  if (request.rank != collective.root) return;
  collective.result = payloads_.Take(request, io_->Window(slave.index), inline_payload_);
  collective.root_arrived = true;
}

}  // namespace bdmpi
