// Names published between jobs of one user on one node: MPI_Publish_name
// in one job, MPI_Lookup_name in another (docs/processes.md, "Dynamic
// processes").
//
// Design. The user's rendezvous directory ($XDG_RUNTIME_DIR/bdmpi when
// that is a directory of this user, else /dev/shm/bdmpi.names-<uid>; mode
// 0700, checked before use) holds a file per name published by a job of
// this user on the node, `name-<service in hex>`, holding the port and the
// liveness file of the publishing job's node 0 (job_liveness.h). Node 0's
// master writes it when it publishes the name in its job (so two jobs
// cannot hold one name), removes it when the name is unpublished and, with
// every name of the job, when its liveness file goes; a collector of a
// dead job does the same. An entry whose liveness file is not held by a
// live job is stale: a lookup ignores it and a publisher replaces it.
// Writers serialize on a flock of the directory; a file is complete when
// it appears (written aside, then renamed); the directory is removed when
// it holds no name, so that it is no leftover.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace bdmpi {

// The longest service name that fits a file name in hex.
inline constexpr std::size_t kMaxSharedServiceName = 120;

// The user's rendezvous directory (it may not exist).
std::string RendezvousDir();

// Publishes `service` as `port` for the job whose node 0 holds the liveness
// file `liveness`. False when a live job of this user holds the name (its
// port in `holder`). Throws Error(kErrName) for a service name too long to
// share, Error(kErrIo) when the directory cannot be made or is not private.
bool PublishBetweenJobs(const std::string& service, const std::string& port,
                        const std::string& liveness, std::string* holder);

// Removes `service` if the job of `liveness` holds it.
void UnpublishBetweenJobs(const std::string& service, const std::string& liveness) noexcept;

// The port under which a live job of this user published `service`.
std::optional<std::string> LookupBetweenJobs(const std::string& service);

// Removes every name of the job whose node 0 held `liveness`; how many.
int RemoveNamesOf(const std::string& liveness) noexcept;

}  // namespace bdmpi
