#include "master/options.h"

#include "common/cli.h"
#include "common/error.h"

namespace bdmpi {

MasterOptions ParseMasterOptions(int argc, char** argv) {
  MasterOptions options;
  options.program = ScanCommandLine(
      "bdmprun", argc, argv,
      [&](const std::string& arg, const std::function<std::string()>& value_of) {
        const OptionRow<JobOptions>* row = FindOption(JobOptionTable(), arg);
        if (row == nullptr) return false;
        row->set(options, row->Flag() ? std::string() : value_of());
        return true;
      });
  try {
    FinishJobOptions(options);
  } catch (const Error& error) {
    throw Error(error.error_class(), std::string("bdmprun: ") + error.what());
  }
  return options;
}

}  // namespace bdmpi
