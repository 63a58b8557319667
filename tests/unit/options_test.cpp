// bdmprun's command line: every option, where the program starts, and the
// values it must refuse.
#include "master/options.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/job_names.h"

namespace bdmpi {
namespace {

// Parses {"bdmprun", args...} as main() would get it.
MasterOptions Parse(std::initializer_list<std::string> args) {
  std::vector<std::string> storage = {"bdmprun"};
  storage.insert(storage.end(), args);
  std::vector<char*> argv;
  for (std::string& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  return ParseMasterOptions(static_cast<int>(storage.size()), argv.data());
}

// The error class Parse(args) throws; -1 if it does not throw.
int ParseErrorClass(std::initializer_list<std::string> args) {
  try {
    Parse(args);
  } catch (const Error& error) {
    return error.error_class();
  }
  return -1;
}

int ByteSizeErrorClass(const std::string& text) {
  try {
    ParseByteSize(text);
  } catch (const Error& error) {
    return error.error_class();
  }
  return -1;
}

using Program = std::vector<std::string>;

// ------------------------------------------------------------ options

TEST(MasterOptionsTest, Defaults) {
  MasterOptions options = Parse({"./app"});
  EXPECT_EQ(options.program, Program{"./app"});
  EXPECT_EQ(options.scratch_dir, "/tmp");
  EXPECT_EQ(options.nslaves, 1);
  EXPECT_EQ(options.nrunning, kAutoRunning);
  EXPECT_EQ(options.ncritical, 1);
  EXPECT_EQ(options.mem_threshold, 64u * 1024);
  EXPECT_EQ(options.mem_budget, 256u * 1024 * 1024);
  EXPECT_EQ(options.policy, SchedulePolicy::kMemory);
  EXPECT_TRUE(options.bind);
}

TEST(MasterOptionsTest, ParsesEveryOption) {
  MasterOptions options =
      Parse({"--job-id", "myjob_1", "--scratch-dir", "/var/scratch", "-ns",
             "16", "-nr", "4", "-nc", "2", "--mem-threshold", "8k",
             "--mem-budget", "3g", "--no-bind", "--policy", "fifo", "./app",
             "x", "y"});
  EXPECT_EQ(options.job_id, "myjob_1");
  EXPECT_EQ(options.scratch_dir, "/var/scratch");
  EXPECT_EQ(options.nslaves, 16);
  EXPECT_EQ(options.nrunning, 4);
  EXPECT_EQ(options.ncritical, 2);
  EXPECT_EQ(options.mem_threshold, 8u * 1024);
  EXPECT_EQ(options.mem_budget, 3ull * 1024 * 1024 * 1024);
  EXPECT_FALSE(options.bind);
  EXPECT_EQ(options.policy, SchedulePolicy::kFifo);
  EXPECT_EQ(options.program, (Program{"./app", "x", "y"}));
}

TEST(MasterOptionsTest, PolicyMemory) {
  EXPECT_EQ(Parse({"--policy", "fifo", "--policy", "memory", "a"}).policy,
            SchedulePolicy::kMemory);
}

TEST(MasterOptionsTest, LaterOptionWins) {
  EXPECT_EQ(Parse({"-ns", "2", "-ns", "5", "a"}).nslaves, 5);
}

TEST(MasterOptionsTest, MissingJobIdIsGenerated) {
  MasterOptions first = Parse({"a"});
  MasterOptions second = Parse({"a"});
  EXPECT_EQ(first.job_id.size(), 16u);
  EXPECT_TRUE(ValidJobId(first.job_id));
  EXPECT_NE(first.job_id, second.job_id);
}

TEST(MasterOptionsTest, ZeroThresholdBecomesOne) {
  EXPECT_EQ(Parse({"--mem-threshold", "0", "a"}).mem_threshold, 1u);
}

// ------------------------------------------------------------ the program

TEST(MasterOptionsTest, ProgramAfterDoubleDash) {
  MasterOptions options = Parse({"-ns", "2", "--", "-weird-name", "--x", "-ns"});
  EXPECT_EQ(options.nslaves, 2);
  EXPECT_EQ(options.program, (Program{"-weird-name", "--x", "-ns"}));
}

TEST(MasterOptionsTest, ProgramAtFirstNonOption) {
  // The program's own options are its own, even those bdmprun knows.
  MasterOptions options =
      Parse({"-nr", "2", "./app", "-ns", "99", "--no-bind", "--", "z"});
  EXPECT_EQ(options.nrunning, 2);
  EXPECT_EQ(options.nslaves, 1);
  EXPECT_TRUE(options.bind);
  EXPECT_EQ(options.program,
            (Program{"./app", "-ns", "99", "--no-bind", "--", "z"}));
}

TEST(MasterOptionsTest, OnlyTheFirstDoubleDashIsEaten) {
  MasterOptions options = Parse({"--", "--", "a"});
  EXPECT_EQ(options.program, (Program{"--", "a"}));
}

TEST(MasterOptionsTest, ProgramArgumentsKeptVerbatim) {
  MasterOptions options = Parse({"app", "", "with space", "-"});
  EXPECT_EQ(options.program, (Program{"app", "", "with space", "-"}));
}

// ------------------------------------------------------------ refusals

TEST(MasterOptionsTest, NoProgramIsAnError) {
  EXPECT_EQ(ParseErrorClass({}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"-ns", "2"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"-ns", "2", "--"}), kErrArg);
}

TEST(MasterOptionsTest, UnknownOptionIsAnError) {
  EXPECT_EQ(ParseErrorClass({"--frobnicate", "a"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"-x", "a"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"-", "a"}), kErrArg);
}

TEST(MasterOptionsTest, MissingValueIsAnError) {
  for (const char* option : {"--job-id", "--scratch-dir", "-ns", "-nr", "-nc",
                             "--mem-threshold", "--mem-budget", "--policy"})
    EXPECT_EQ(ParseErrorClass({option}), kErrArg) << option;
}

TEST(MasterOptionsTest, BadCountsAreErrors) {
  for (const char* option : {"-ns", "-nr", "-nc"}) {
    for (const char* value : {"0", "-1", "abc", "", "3x", "1.5", "2000000",
                              "99999999999999999999"}) {
      EXPECT_EQ(ParseErrorClass({option, value, "a"}), kErrArg)
          << option << " '" << value << "'";
    }
  }
}

TEST(MasterOptionsTest, LargestCountAccepted) {
  EXPECT_EQ(Parse({"-ns", "1048576", "a"}).nslaves, 1 << 20);
  EXPECT_EQ(ParseErrorClass({"-ns", "1048577", "a"}), kErrArg);
}

TEST(MasterOptionsTest, BadPolicyIsAnError) {
  EXPECT_EQ(ParseErrorClass({"--policy", "random", "a"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"--policy", "FIFO", "a"}), kErrArg);
}

TEST(MasterOptionsTest, BadJobIdIsAnError) {
  EXPECT_EQ(ParseErrorClass({"--job-id", "a/b", "a"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"--job-id", std::string(33, 'j'), "a"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"--job-id", "..", "a"}), kErrArg);
}

TEST(MasterOptionsTest, BadSizesAreErrors) {
  EXPECT_EQ(ParseErrorClass({"--mem-threshold", "lots", "a"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"--mem-budget", "12q", "a"}), kErrArg);
}

TEST(MasterOptionsTest, NegativeSizesAreErrors) {
  // strtoull accepts "-1" as 2^64 - 1: an "unlimited" budget by accident.
  EXPECT_EQ(ParseErrorClass({"--mem-budget", "-1", "a"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"--mem-threshold", "-64k", "a"}), kErrArg);
}

// ------------------------------------------------------------ byte sizes

TEST(MasterOptionsTest, StorageOptions) {
  MasterOptions defaults = Parse({"prog"});
  EXPECT_TRUE(defaults.storage_alloc);
  EXPECT_EQ(defaults.storage_threshold, 1u << 20);
  EXPECT_EQ(defaults.node_memory, 0u);  // 0: from the cgroup or meminfo
  EXPECT_EQ(defaults.prefetch, Prefetch::kLazy);
  MasterOptions o = Parse({"--storage-alloc", "off", "--storage-threshold", "64k",
                           "--node-memory", "2g", "--prefetch", "eager", "prog"});
  EXPECT_FALSE(o.storage_alloc);
  EXPECT_EQ(o.storage_threshold, 64u << 10);
  EXPECT_EQ(o.node_memory, 2ull << 30);
  EXPECT_EQ(o.prefetch, Prefetch::kEager);
  EXPECT_EQ(Parse({"--prefetch", "ahead", "prog"}).prefetch, Prefetch::kAhead);
  // Below a page a block would waste most of its page.
  EXPECT_EQ(Parse({"--storage-threshold", "1", "prog"}).storage_threshold, 4096u);
  EXPECT_EQ(ParseErrorClass({"--storage-alloc", "yes", "prog"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"--prefetch", "sometimes", "prog"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"--node-memory", "0", "prog"}), kErrArg);
  EXPECT_EQ(ParseErrorClass({"--node-memory", "lots", "prog"}), kErrArg);
}

TEST(ParseByteSizeTest, PlainNumbers) {
  EXPECT_EQ(ParseByteSize("0"), 0u);
  EXPECT_EQ(ParseByteSize("1"), 1u);
  EXPECT_EQ(ParseByteSize("4096"), 4096u);
  EXPECT_EQ(ParseByteSize("123456789012"), 123456789012ull);
}

TEST(ParseByteSizeTest, Suffixes) {
  EXPECT_EQ(ParseByteSize("64k"), 64u << 10);
  EXPECT_EQ(ParseByteSize("64K"), 64u << 10);
  EXPECT_EQ(ParseByteSize("3KiB"), 3u << 10);
  EXPECT_EQ(ParseByteSize("1m"), 1u << 20);
  EXPECT_EQ(ParseByteSize("5M"), 5u << 20);
  EXPECT_EQ(ParseByteSize("2MiB"), 2u << 20);
  EXPECT_EQ(ParseByteSize("2g"), 2ull << 30);
  EXPECT_EQ(ParseByteSize("7G"), 7ull << 30);
  EXPECT_EQ(ParseByteSize("1GiB"), 1ull << 30);
  EXPECT_EQ(ParseByteSize("0k"), 0u);
}

TEST(ParseByteSizeTest, BadTextIsAnError) {
  for (const char* text : {"", "k", "abc", "12x", "1.5m", "12 k", "1kk",
                           "1kb", "1t", "0x10"})
    EXPECT_EQ(ByteSizeErrorClass(text), kErrArg) << "'" << text << "'";
}

TEST(ParseByteSizeTest, NegativeIsAnError) {
  // strtoull negates "-1" into 2^64 - 1 instead of failing.
  EXPECT_EQ(ByteSizeErrorClass("-1"), kErrArg);
  EXPECT_EQ(ByteSizeErrorClass("-2k"), kErrArg);
}

TEST(ParseByteSizeTest, OverflowIsAnError) {
  // Out of range for strtoull (ERANGE) ...
  EXPECT_EQ(ByteSizeErrorClass("99999999999999999999"), kErrArg);
  // ... or in range but overflowing once scaled (2^34 GiB = 2^64 wraps to 0).
  EXPECT_EQ(ByteSizeErrorClass("17179869184g"), kErrArg);
  EXPECT_EQ(ByteSizeErrorClass("18014398509481984k"), kErrArg);
}

}  // namespace
}  // namespace bdmpi
