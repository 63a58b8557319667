// The text fields of the masters' messages about dynamic processes
// (WireKind::kDynamic): numbers as decimal strings, read back strictly.
#pragma once

#include <string>

#include "common/error.h"

namespace bdmpi {

inline std::string Str(int value) { return std::to_string(value); }

inline int ToInt(const std::string& field) {
  try {
    std::size_t used = 0;
    int value = std::stoi(field, &used);
    if (used == field.size()) return value;
  } catch (const std::exception&) {
  }
  throw Error(kErrIntern, "a master's spawn message holds '" + field + "' for a number");
}

}  // namespace bdmpi
