#include "bdmpiexec/cleanup.h"

#include <mqueue.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <filesystem>

#include "common/file_io.h"
#include "common/job_names.h"

namespace bdmpi {

int RemoveJobLeftovers(const std::string& job_id, const std::string& scratch_dir,
                       int nnodes, int nslaves) {
  int removed = 0;
  // Queue names are not listable without the mqueue filesystem mounted, so
  // unlink every name the job could have used.
  for (int node = 0; node < nnodes; ++node) {
    JobNames names(job_id, node);
    if (mq_unlink(names.RequestQueue().c_str()) == 0) ++removed;
    if (shm_unlink(names.StorageTable().c_str()) == 0) ++removed;
    for (int slave = 0; slave < nslaves; ++slave) {
      if (mq_unlink(names.GoQueue(slave).c_str()) == 0) ++removed;
      if (shm_unlink(names.Window(slave).c_str()) == 0) ++removed;
    }
  }
  std::string job_dir = JobNames(job_id, 0).JobDir(scratch_dir);
  struct stat info {};
  if (stat(job_dir.c_str(), &info) == 0) {
    RemoveTree(job_dir);
    ++removed;
  }
  return removed;
}

}  // namespace bdmpi
