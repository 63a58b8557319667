#include "bdmpiexec/cleanup.h"

#include <dirent.h>
#include <mqueue.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "common/file_io.h"
#include "common/job_liveness.h"
#include "common/job_names.h"
#include "common/name_tags.h"
#include "common/private_dir.h"
#include "common/rendezvous.h"

namespace bdmpi {
namespace {

// Removes the directory `path` (no symlink followed) if it is one of ours.
bool RemoveOwnDir(const std::string& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != geteuid())
    return false;
  RemoveTree(path);
  return true;
}

// The node's memory directories: this user's, in /dev/shm, by their prefix.
int RemoveMemoryDirs(const JobNames& names) {
  int removed = 0;
  for (const std::string& name : OwnEntries("/dev/shm", names.MemoryDir("").substr(9)))
    if (RemoveOwnDir("/dev/shm" + name)) ++removed;
  return removed;
}

// Removes every object of node `names` of a job whose processes there are
// gone (`dead` holds its liveness file `liveness` locked); the liveness
// file goes last. Every object of this user with the node's prefix is the
// dead job's: no other job with its id starts on the node while that
// liveness file exists (common/job_liveness.h).
int RemoveNodeObjects(const JobNames& names, const std::string& liveness, const DeadNode& dead) {
  int removed = 0;
  if (!dead.record.name_key.empty()) {
    NodeObjectNames objects =
        NamesOfNodeObjects(names, NameTags(dead.record.name_key), dead.record.nslaves);
    if (mq_unlink(objects.request_queue.c_str()) == 0) ++removed;
    if (shm_unlink(objects.storage_table.c_str()) == 0) ++removed;
    for (const std::string& name : objects.go_queues)
      if (mq_unlink(name.c_str()) == 0) ++removed;
    for (const std::string& name : objects.windows)
      if (shm_unlink(name.c_str()) == 0) ++removed;
  }
  // Names beyond those (none today), where they can be listed.
  const std::string prefix = names.NodePrefix().substr(1);
  for (const std::string& name : OwnEntries("/dev/mqueue", prefix))
    if (mq_unlink(name.c_str()) == 0) ++removed;
  const std::string live_prefix = names.Liveness("");
  for (const std::string& name : OwnEntries("/dev/shm", prefix)) {
    // Another liveness file is a job starting with this id, which sees the
    // dead one and stops, removing its own.
    if (name.rfind(live_prefix, 0) == 0) continue;
    if (RemoveOwnDir("/dev/shm" + name) || shm_unlink(name.c_str()) == 0) ++removed;
  }
  // The master's private directory, as its record names it: only one of
  // this node's names, private and ours.
  const std::string& dir = dead.record.spill_dir;
  std::size_t slash = dir.rfind('/');
  if (slash != std::string::npos && dir.compare(slash, names.NodePrefix().size(),
                                                names.NodePrefix()) == 0 &&
      IsPrivateDir(dir)) {
    RemoveTree(dir);
    ++removed;
  }
  // Names it published for the user's other jobs (node 0's).
  removed += RemoveNamesOf(liveness);
  shm_unlink(liveness.c_str());
  return removed;
}

}  // namespace

int RemoveLaunchLeftovers(const std::string& job_id, const std::string& launch_secret,
                          int nnodes, int wait_ms) {
  int removed = 0;
  for (int node = 0; node < nnodes; ++node) {
    JobNames names(job_id, node);
    std::vector<std::string> files = LivenessFiles(names);
    // Gone, or elsewhere. A master makes its memory directory after its
    // liveness file and removes it before: without one, the directory is
    // an orphan (a collector that does not know it took the rest).
    if (files.empty()) removed += RemoveMemoryDirs(names);
    for (const std::string& name : files) {
      // Another launch's, with the same job id: not ours to touch or wait for.
      std::optional<JobRecord> record = ReadLivenessRecord(name);
      if (record && record->launch_secret != launch_secret) continue;
      std::optional<DeadNode> dead = LockIfDead(name, wait_ms);
      if (!dead) return -1;
      if (dead->record.launch_secret != launch_secret) continue;
      removed += RemoveNodeObjects(names, name, *dead);
    }
  }
  return removed;
}

void CollectDeadJobs() {
  for (const std::string& name : OwnEntries("/dev/shm", "bdmpi-")) {
    std::optional<JobNames> names = JobNames::OfLiveness(name);
    if (!names) continue;
    std::optional<DeadNode> dead = LockIfDead(name, 0);
    if (!dead) continue;
    int removed = RemoveNodeObjects(*names, name, *dead);
    std::fprintf(stderr,
                 "bdmpiexec: removed %d leftover object(s) of job %s (node %d), whose "
                 "processes are all gone\n",
                 removed, names->job_id().c_str(), names->node());
  }
}

}  // namespace bdmpi
