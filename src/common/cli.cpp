#include "common/cli.h"

#include <cstdlib>

#include "common/error.h"

namespace bdmpi {

int ParsePositiveInt(const char* program, const std::string& option,
                     const std::string& text) {
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value < 1 || value > 1 << 20)
    throw Error(kErrArg, std::string(program) + ": " + option +
                             " needs a positive integer, got '" + text + "'");
  return static_cast<int>(value);
}

}  // namespace bdmpi
