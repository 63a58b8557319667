// Finding the program a job runs, as execvp would.
#pragma once

#include <string>

namespace bdmpi {

// Resolves `program` against PATH (unless it holds a '/') to a regular file
// this user may execute. Throws Error(kErrArg) naming the program and what
// is wrong with it (not found, a directory, not executable).
std::string ResolveProgram(const std::string& program);

}  // namespace bdmpi
