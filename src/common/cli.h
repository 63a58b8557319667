// Command-line values that bdmpiexec and bdmprun both parse.
#pragma once

#include <string>

namespace bdmpi {

// A count such as -ns or -nr: an integer in [1, 2^20]. Throws
// Error(kErrArg) "<program>: <option> needs a positive integer, got '...'".
int ParsePositiveInt(const char* program, const std::string& option,
                     const std::string& text);

}  // namespace bdmpi
