// Options of Open MPI's mpirun and MPICH's mpiexec that job scripts carry
// out of habit, accepted so that `mpirun --oversubscribe -np 4 ./a.out`
// or `mpiexec -ppn 8 -n 32 ./a.out` runs unchanged under bdmpiexec. Each
// either means one of bdmpiexec's own options or has nothing to do here;
// one that asked for something BDMPI does not do gets a warning saying so.
#pragma once

#include <functional>
#include <string>

namespace bdmpi {

// bdmpiexec's own spelling: an option and its value; an empty name when
// the foreign option has no effect here.
struct NativeOption {
  std::string name;
  std::string value;
};

struct ForeignOption {
  const char* name;
  int values;  // how many arguments follow it: 0, 1 or 2
  // What it means here, given its (first) value; nullptr: nothing.
  std::function<NativeOption(const std::string& value)> translate;
  // Why it has no effect, for a warning; nullptr: nothing to warn about.
  const char* ignored_because;
};

// The row for `arg` (e.g. "--oversubscribe"), or nullptr.
const ForeignOption* FindForeignOption(const std::string& arg);

// For --help: a paragraph that lists them.
extern const char* const kForeignOptionsHelp;

}  // namespace bdmpi
