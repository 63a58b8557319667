// The job's directories under the scratch directory, which other local
// users may share (/tmp): each is created exclusively with mode 0700 and
// checked (a real directory, not a symlink, ours, 0700) before anything is
// put into or read from it. They are held open, so that files are opened
// relative to the directory that was checked, not to whatever the path
// names later.
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

// <scratch>/bdmpi-<id>: created exclusively with a file holding
// `launch_secret`, or, when it exists, joined only if it is private and
// holds the same secret (a sibling master of the same launch on this host).
// Throws with a message naming the directory otherwise.
UniqueFd CreateOrJoinJobDir(const std::string& path, const std::string& launch_secret);

// Whether `path` is a private job directory holding `launch_secret`.
bool IsJobDirOf(const std::string& path, const std::string& launch_secret) noexcept;

// Creates `name` inside `parent_fd` exclusively (0700) and opens it.
UniqueFd CreatePrivateDirAt(int parent_fd, const std::string& name, const std::string& path);

// The inode of an open file, to recognise it later.
std::uint64_t InodeOf(int fd);

// Removes the job directory `path` if nothing but its secret is left in it.
void RemoveJobDirIfEmpty(const std::string& path) noexcept;

}  // namespace bdmpi
