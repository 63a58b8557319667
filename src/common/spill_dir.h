// A node's private spill directory and the files in it. The directory is
// held open and every spill file is created and opened relative to it,
// never through a symlink; a reader checks that the file is the one its
// writer made (same inode, ours, one link) and that the directory's path
// still names the directory checked at the start, so that a replaced file
// or directory ends the job instead of feeding a receive wrong bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/unique_fd.h"

namespace bdmpi {

class SpillDir {
 public:
  SpillDir() = default;
  // A directory already created and checked (private_dir.h).
  SpillDir(UniqueFd fd, std::string path);
  // The master's spill directory, opened by a slave: it must be private and
  // the directory with `inode` (the master passes both).
  static SpillDir OpenExisting(const std::string& path, std::uint64_t inode);

  const std::string& path() const { return path_; }
  std::uint64_t inode() const { return inode_; }
  std::string FilePath(std::uint64_t file_id) const;

  // Creates spill file `file_id` exclusively; *inode receives its inode.
  UniqueFd Create(std::uint64_t file_id, int access, std::uint64_t* inode) const;
  // Creates spill file `file_id` (read-write) with `bytes` of disk reserved,
  // so that writing through a mapping of it can never fail (SIGBUS) for
  // want of space: a full disk is an error here, naming the directory.
  UniqueFd CreateReserved(std::uint64_t file_id, std::uint64_t bytes,
                          std::uint64_t* inode) const;
  // Opens spill file `file_id`, which must be a regular file of this user
  // with one link and, unless `inode` is 0, that inode. Throws Error(kErrIo)
  // naming the file otherwise.
  UniqueFd Open(std::uint64_t file_id, int access, std::uint64_t inode) const;
  // Creates spill file `file_id` holding `size` bytes; returns its inode.
  std::uint64_t Write(std::uint64_t file_id, const void* data, std::size_t size) const;
  // Reads up to `capacity` bytes of spill file `file_id` (checked as Open).
  void ReadPrefix(std::uint64_t file_id, std::uint64_t inode, void* data,
                  std::size_t capacity) const;
  void Unlink(std::uint64_t file_id) const noexcept;

  // Files a rank made outside the job's directories (the MPI-IO shared
  // file pointer's lock file, next to the data file), one path per line in
  // the record file `kJobFilesRecord`, so that the master removes them at
  // the end of the job even when the rank that would have did not live.
  static constexpr const char* kJobFilesRecord = "job-files";
  void RecordJobFile(const std::string& path) const;
  std::vector<std::string> RecordedJobFiles() const;

 private:
  // Throws unless path_ still names the directory held open.
  void CheckStillInPlace() const;
  UniqueFd fd_;
  std::string path_;
  std::uint64_t inode_ = 0;
};

}  // namespace bdmpi
