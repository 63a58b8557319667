#include "bdmpiexec/proc_files.h"

#include <fstream>
#include <iterator>
#include <sstream>

namespace bdmpi {

std::string ReadProcFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

std::vector<std::string> StatFieldsAfterCommand(const std::string& stat) {
  std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return {};
  std::istringstream fields(stat.substr(paren + 1));
  return {std::istream_iterator<std::string>(fields), std::istream_iterator<std::string>()};
}

}  // namespace bdmpi
