// Command-line values that bdmpiexec and bdmprun both parse.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace bdmpi {

// A count such as -ns or -nr: an integer in [1, 2^20]. Throws
// Error(kErrArg) "<option> needs a positive integer, got '...'".
int ParsePositiveInt(const std::string& option, const std::string& text);

// Scans argv[1..] for options up to "--" or the first argument that does
// not start with '-', which starts the program: its arguments are its own.
// `apply(arg, value_of)` handles one option, or returns false for an
// unknown one; value_of() takes the option's value. Returns the program and
// its arguments (empty when `stop` set by apply, e.g. for --help). Every
// error is Error(kErrArg) prefixed with "<tool>: ".
using ApplyOption = std::function<bool(const std::string& arg,
                                       const std::function<std::string()>& value_of)>;
std::vector<std::string> ScanCommandLine(const char* tool, int argc, char** argv,
                                         const ApplyOption& apply);

// One option of a --help text: names in a 22-column field, the text
// wrapped at 78 columns and indented under it.
std::string OptionHelpLine(const std::string& names, const std::string& text);

}  // namespace bdmpi
