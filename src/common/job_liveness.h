// Whether the processes of a job on this node are still alive, so that a
// launcher may remove what a dead job left behind and nothing of a live one.
//
// Design. Before it creates anything else, each master creates the node's
// liveness file /dev/shm/bdmpi-<id>-n<node>-live exclusively (EEXIST: the
// job id is in use on this node; the master stops without touching
// anything), writes into it what a collector needs (the launch secret, the
// slaves per node, the scratch directory, its own pid) and takes a shared flock on it.
// The descriptor is not close-on-exec: every slave inherits it, and with it
// the lock, which the kernel drops only when the last process holding the
// open file is gone, however they end. A collector that gets the exclusive
// lock (non-blocking) therefore knows that every process of the job on the
// node is gone; it removes the node's objects by name (so message queues
// need no listing of /dev/mqueue) and the liveness file last. A master that
// ends normally does the same itself.
#pragma once

#include <optional>
#include <string>

#include "common/job_names.h"
#include "common/unique_fd.h"

namespace bdmpi {

// What a collector needs to find a node's objects.
struct JobRecord {
  std::string launch_secret;
  int nslaves = 0;
  std::string scratch_dir;
  // The master holding the lease: `bdmpiexec --status` finds it here as
  // soon as it started, before any of its ranks exists.
  long master_pid = 0;
};

// A master's claim on its node of a job: the locked liveness file.
class NodeLease {
 public:
  NodeLease() = default;
  // Throws Error with a message naming the job id when it is in use.
  static NodeLease Claim(const JobNames& names, const JobRecord& record);
  NodeLease(NodeLease&&) noexcept = default;
  NodeLease& operator=(NodeLease&& other) noexcept;
  ~NodeLease();  // unlinks the liveness file

 private:
  void Release() noexcept;
  std::string name_;
  UniqueFd fd_;
};

// The liveness file of a node whose processes are all gone, held locked so
// that no other collector works on it at the same time.
struct DeadNode {
  UniqueFd lock;
  JobRecord record;
};

// The record in the liveness file `name` of a live (or dead) node, if it
// belongs to this user and is complete; no lock taken.
std::optional<JobRecord> ReadLivenessRecord(const std::string& name);

// The node behind liveness file `name` if the file belongs to this user,
// holds a complete record, and its lock comes free within `wait_ms`.
std::optional<DeadNode> LockIfDead(const std::string& name, int wait_ms);

}  // namespace bdmpi
