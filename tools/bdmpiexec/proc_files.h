// The kernel's files under /proc as bdmpiexec reads them: the ranks' and
// its children's states, and the processors' times.
#pragma once

#include <string>
#include <vector>

namespace bdmpi {

// The whole file; empty when it cannot be read (a process gone meanwhile).
std::string ReadProcFile(const std::string& path);

// The fields of a /proc/PID/stat line after the command's name, which may
// hold spaces and parentheses: [0] is the state (the line's third field),
// [1] the parent's pid, [11] and [12] the user and system clock ticks,
// [36] the processor last run on. Empty when there is no name.
std::vector<std::string> StatFieldsAfterCommand(const std::string& stat);

}  // namespace bdmpi
