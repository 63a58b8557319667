// Whether the processes of a job on this node are still alive, so that a
// launcher may remove what a dead job left behind and nothing of a live one.
//
// Design. Before it creates anything else, each master creates the node's
// liveness file /dev/shm/bdmpi-<id>-n<node>-live-<tag> (a fresh random tag,
// job_names.h, so that no other user can create it first), writes into it
// what a collector needs (the launch secret, the slaves per node, the
// master's private directories, the key of its objects' names, its own pid),
// takes a shared flock on it, and only then looks for another liveness file
// of this user with the same id and node: if there is one, the job id is in
// use on this node and the master stops without touching anything. Of two
// masters racing with one id, at least the later one to look sees the
// other's file, so at most one goes on. Files of other users are never
// looked at: they cannot take an id from us. The descriptor is the one a
// slave inherits (spawn.h): every slave holds it, and with it the lock,
// which the kernel drops only when the last process holding the open file is
// gone, however they end. A collector that gets the exclusive lock (non-
// blocking) therefore knows that every process of the job on the node is
// gone; it removes the node's objects (named from the record's key,
// name_tags.h; where they can be listed, also this user's entries of
// /dev/shm and /dev/mqueue with the node's prefix; the directories the
// record names; the job's shared names, rendezvous.h) and the liveness file
// last. A master that ends normally does the same itself (NodeLease).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/job_names.h"
#include "common/unique_fd.h"

namespace bdmpi {

// What a collector needs to find a node's objects.
struct JobRecord {
  std::string launch_secret;
  int nslaves = 0;
  // The master's private directory (spill files, status requests) and its
  // memory directory ("" when it has none); named before they exist.
  std::string spill_dir;
  std::string memory_dir;
  // The key of the tags of the node's queue and shared-memory names
  // (name_tags.h).
  std::string name_key;
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
  const std::string& name() const { return name_; }
  // Inherited by every slave (the lock is held while one lives).
  int fd() const { return fd_.get(); }
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

// This user's entries of `dir` (/dev/shm, /dev/mqueue) whose names start
// with `prefix` (no leading '/'), as "/<name>". Empty when `dir` is absent:
// /dev/mqueue exists only where the mqueue filesystem is mounted.
std::vector<std::string> OwnEntries(const char* dir, const std::string& prefix);

// This user's liveness files of node `names` (one, unless a job is starting
// with the same id, or a dead one is not collected yet).
std::vector<std::string> LivenessFiles(const JobNames& names);

// The record in the liveness file `name` of a live (or dead) node, if it
// belongs to this user and is complete; no lock taken.
std::optional<JobRecord> ReadLivenessRecord(const std::string& name);

// The node behind liveness file `name` if the file belongs to this user,
// holds a complete record, and its lock comes free within `wait_ms`.
std::optional<DeadNode> LockIfDead(const std::string& name, int wait_ms);

}  // namespace bdmpi
