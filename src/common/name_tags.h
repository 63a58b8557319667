// The tags that end the names of a node's IPC objects (job_names.h),
// derived from a per-node key: tag = the first 64 bits of
// HMAC-SHA256(key, "<kind><index>"). The key is drawn by the master before
// it creates anything and kept in its liveness file (mode 0600,
// job_liveness.h), so a collector of a dead node names every object from
// the key and the slave count (no listing of /dev/mqueue, which may not be
// mounted), while the names other users can see once the objects exist
// tell them nothing about the tags of the objects still to come. Linked by
// the master and bdmpiexec only; a slave is given its names.
#pragma once

#include <string>
#include <vector>

#include "common/job_names.h"

namespace bdmpi {

class NameTags {
 public:
  // A fresh key: 32 hex digits from the kernel's random source.
  static std::string NewKey();
  explicit NameTags(std::string key) : key_(std::move(key)) {}
  const std::string& key() const { return key_; }
  // 16 hex digits for the object `what` ("req", "go7", ...).
  std::string Of(const std::string& what) const;

 private:
  std::string key_;
};

// The named objects of a node with `nslaves` slaves.
struct NodeObjectNames {
  std::string request_queue;
  std::string storage_table;
  std::vector<std::string> go_queues;
  std::vector<std::string> windows;
};
NodeObjectNames NamesOfNodeObjects(const JobNames& names, const NameTags& tags, int nslaves);

}  // namespace bdmpi
