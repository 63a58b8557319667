#include "master/network/topology.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace bdmpi {

std::string RackFromSlurmAddress(const std::string& address) {
  std::size_t last = address.rfind('.');
  return last == std::string::npos ? std::string() : address.substr(0, last);
}

std::string DetectRack(const std::string& topology_file) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string short_host(host);
  short_host = short_host.substr(0, short_host.find('.'));
  if (!topology_file.empty()) {
    std::ifstream file(topology_file);
    if (!file) throw Error(kErrArg, "cannot read the topology file " + topology_file);
    std::string line;
    while (std::getline(file, line)) {
      line = line.substr(0, line.find('#'));
      std::istringstream fields(line);
      std::string name, rack;
      if (!(fields >> name >> rack)) continue;
      if (name == host || name == short_host) return rack;
    }
    throw Error(kErrArg, "the topology file " + topology_file + " does not name host " +
                             short_host);
  }
  if (const char* address = std::getenv("SLURM_TOPOLOGY_ADDR"))
    return RackFromSlurmAddress(address);
  return "";
}

}  // namespace bdmpi
