// The job's directories in the scratch directory and /dev/shm, which other
// local users may share (/tmp): each has a name no other user can know
// before it exists (a random tag, job_names.h), is created exclusively with
// mode 0700 and checked (a real directory, not a symlink, ours, 0700)
// before anything is put into or read from it. They are held open, so that
// files are opened relative to the directory that was checked, not to
// whatever the path names later.
#pragma once

#include <cstdint>
#include <string>

#include "common/unique_fd.h"

namespace bdmpi {

// Throws Error(kErrIo) naming `path` unless `fd` is a directory owned by the
// effective user with mode 0700.
void CheckPrivateDir(int fd, const std::string& path);

// Opens the directory `path` (not a symlink) and checks it.
UniqueFd OpenPrivateDir(const std::string& path);

// Creates the directory `path` exclusively (0700) and opens it. Throws
// Error naming it when it exists (whoever made it) or cannot be made.
UniqueFd CreatePrivateDir(const std::string& path);

// Whether `path` is a private directory of this user (OpenPrivateDir would
// take it).
bool IsPrivateDir(const std::string& path) noexcept;

// Creates `name` inside `parent_fd` exclusively (0700) and opens it.
UniqueFd CreatePrivateDirAt(int parent_fd, const std::string& name, const std::string& path);

// The inode of an open file, to recognise it later.
std::uint64_t InodeOf(int fd);

}  // namespace bdmpi
