// What the tool interface (MPI_T, slave/api/tool.cpp) shows: control
// variables made from the job's settings table (common/job_options.h), one
// per row, read-only (a rank cannot change a job's setting while it runs);
// performance variables for the run report's counters of this rank
// (counters.h); the categories that group both; the enumerations of
// settings that take one of several names; the categories of the events
// (events.h).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bdmpi::tool {

// Settings that take one of several names: each name's value is its index.
struct Enumeration {
  std::string name;
  std::vector<std::string> items;
};

enum class ValueKind { kInt, kBytes, kText };

struct ControlVariable {
  std::string name;         // bdmpi_mem_threshold
  std::string description;  // the option's help, its default, its option
  ValueKind kind = ValueKind::kText;
  int enumeration = -1;     // index in Enumerations(), or -1
  std::size_t row = 0;      // in JobOptionTable()
};

struct PerformanceVariable {
  std::string name;         // bdmpi_sent_inline_bytes
  std::string description;
  int var_class = MPI_T_PVAR_CLASS_COUNTER;
  bool continuous = false;  // LEVEL: always current, neither started nor reset
  std::uint64_t (*read)(int which) = nullptr;  // from the rank's slot
  int which = 0;            // a path, for the per-path counters
};

struct Category {
  std::string name;
  std::string description;
  std::vector<int> cvars, pvars, categories, events;
};

const std::vector<Enumeration>& Enumerations();
const std::vector<ControlVariable>& ControlVariables();
const std::vector<PerformanceVariable>& PerformanceVariables();
const std::vector<Category>& Categories();

// MPI_T's datatype of a control variable's value.
MPI_Datatype DatatypeOf(const ControlVariable& cvar);
// The number of elements a handle of it holds (a text: its length + 1).
int CountOf(const ControlVariable& cvar);
// Writes the value to `buf` as DatatypeOf (a text: at most `count`
// characters with its NUL): the setting as this rank's master has it, an
// enumeration's as its item's index.
void ReadControl(const ControlVariable& cvar, void* buf, int count);

}  // namespace bdmpi::tool
