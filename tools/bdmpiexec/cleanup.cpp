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
#include "common/private_dir.h"

namespace bdmpi {
namespace {

// Entries of `dir` (a tmpfs listing of IPC objects) that start with
// `prefix` and belong to this user. Empty when `dir` is absent: /dev/mqueue
// exists only where the mqueue filesystem is mounted.
std::vector<std::string> OwnEntries(const char* dir, const std::string& prefix) {
  std::vector<std::string> names;
  DIR* listing = opendir(dir);
  if (listing == nullptr) return names;
  while (dirent* entry = readdir(listing)) {
    std::string name = entry->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    struct stat info {};
    if (fstatat(dirfd(listing), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 &&
        info.st_uid == geteuid())
      names.push_back("/" + name);
  }
  closedir(listing);
  return names;
}

// Removes the node's memory directory, with the payloads in it, if it is
// ours (RemoveTree does not follow symlinks).
bool RemoveMemoryDir(const JobNames& names) {
  struct stat info {};
  if (lstat(names.MemoryDir().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
      info.st_uid != geteuid())
    return false;
  RemoveTree(names.MemoryDir());
  return true;
}

// Removes every object of node `node` of a job whose processes there are
// gone (`dead` holds its liveness file locked); the liveness file goes last.
int RemoveNodeObjects(const std::string& job_id, int node, const DeadNode& dead) {
  JobNames names(job_id, node);
  int removed = 0;
  if (mq_unlink(names.RequestQueue().c_str()) == 0) ++removed;
  if (shm_unlink(names.StorageTable().c_str()) == 0) ++removed;
  for (int slave = 0; slave < dead.record.nslaves; ++slave) {
    if (mq_unlink(names.GoQueue(slave).c_str()) == 0) ++removed;
    if (shm_unlink(names.Window(slave).c_str()) == 0) ++removed;
  }
  // Names beyond the record's (none today), where they can be listed.
  std::string prefix = names.NodePrefix().substr(1);
  for (const std::string& name : OwnEntries("/dev/mqueue", prefix))
    if (mq_unlink(name.c_str()) == 0) ++removed;
  for (const std::string& name : OwnEntries("/dev/shm", prefix))
    if (name != names.Liveness() && shm_unlink(name.c_str()) == 0) ++removed;
  if (RemoveMemoryDir(names)) ++removed;
  // The spill directory, only inside a job directory of the same launch.
  std::string job_dir = names.JobDir(dead.record.scratch_dir);
  if (IsJobDirOf(job_dir, dead.record.launch_secret)) {
    std::string spill_dir = names.SpillDir(dead.record.scratch_dir);
    struct stat info {};
    if (lstat(spill_dir.c_str(), &info) == 0) {
      RemoveTree(spill_dir);
      ++removed;
    }
    RemoveJobDirIfEmpty(job_dir);
  }
  shm_unlink(names.Liveness().c_str());
  return removed;
}

}  // namespace

int RemoveLaunchLeftovers(const std::string& job_id, const std::string& launch_secret,
                          int nnodes, int wait_ms) {
  int removed = 0;
  for (int node = 0; node < nnodes; ++node) {
    std::string name = JobNames(job_id, node).Liveness();
    struct stat info {};
    if (stat(("/dev/shm" + name).c_str(), &info) != 0) {
      // Gone, or elsewhere. A master makes its memory directory after its
      // liveness file and removes it before: without one, the directory is
      // an orphan (a collector that does not know it took the rest).
      if (RemoveMemoryDir(JobNames(job_id, node))) ++removed;
      continue;
    }
    std::optional<DeadNode> dead = LockIfDead(name, wait_ms);
    if (!dead) return -1;
    // Another launch's, with the same job id: not ours to touch.
    if (dead->record.launch_secret != launch_secret) continue;
    removed += RemoveNodeObjects(job_id, node, *dead);
  }
  return removed;
}

void CollectDeadJobs() {
  // Liveness files are "bdmpi-<id>-n<node>-live".
  for (const std::string& name : OwnEntries("/dev/shm", "bdmpi-")) {
    static const std::string kSuffix = "-live";
    if (name.size() <= kSuffix.size() ||
        name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
      continue;
    std::string stem = name.substr(7, name.size() - 7 - kSuffix.size());  // "<id>-n<node>"
    std::size_t dash = stem.rfind("-n");
    if (dash == std::string::npos) continue;
    std::string job_id = stem.substr(0, dash);
    int node = std::atoi(stem.c_str() + dash + 2);
    if (!ValidJobId(job_id) || JobNames(job_id, node).Liveness() != name) continue;
    std::optional<DeadNode> dead = LockIfDead(name, 0);
    if (!dead) continue;
    int removed = RemoveNodeObjects(job_id, node, *dead);
    std::fprintf(stderr,
                 "bdmpiexec: removed %d leftover object(s) of job %s (node %d), whose "
                 "processes are all gone\n",
                 removed, job_id.c_str(), node);
  }
}

}  // namespace bdmpi
