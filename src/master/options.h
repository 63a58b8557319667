// Command line of bdmprun (normally built by bdmpiexec): the job's options
// (common/job_options.h) and the program.
#pragma once

#include "common/byte_size.h"
#include "common/job_options.h"

namespace bdmpi {

struct MasterOptions : JobOptions {};

// Parses "--name value" options up to "--" or the first non-option, which
// starts the program. Throws Error(kErrArg) "bdmprun: ..." on bad input.
MasterOptions ParseMasterOptions(int argc, char** argv);

}  // namespace bdmpi
