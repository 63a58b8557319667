// The ranks' environment (master/launch/spawn.h): which programs get libbdmpi
// preloaded, in what order with the user's preload, and which inherited
// variables never reach a rank.
#include "master/launch/spawn.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace bdmpi {
namespace {

class ScriptDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/bdmpi-spawn-test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& file : files_) unlink(file.c_str());
    rmdir(dir_.c_str());
  }
  // An executable file NAME holding TEXT.
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), 0755);
    files_.push_back(path);
    return path;
  }
  std::string dir_;
  std::vector<std::string> files_;
};

Linkage Of(const std::string& path, std::string* inspected = nullptr) {
  std::string looked_at;
  Linkage linkage = ProgramLinkage(path, "/usr/bin:/bin", looked_at);
  if (inspected != nullptr) *inspected = looked_at;
  return linkage;
}

TEST(ProgramLinkageTest, ElfFiles) {
  EXPECT_EQ(Of("/bin/sh"), Linkage::kPreload);  // dynamic, no libbdmpi
  EXPECT_EQ(Of(LINKED_PROGRAM), Linkage::kLinked);         // DT_NEEDED libbdmpi.so.0
  EXPECT_EQ(Of(STATIC_LIBBDMPI_PROGRAM), Linkage::kLinked);  // defines PMPI_Init
  EXPECT_EQ(Of(STATIC_PROGRAM), Linkage::kStatic);
  EXPECT_EQ(Of("/nonexistent/program"), Linkage::kUnknown);
}

TEST_F(ScriptDir, ScriptsAreTheirInterpreters) {
  std::string inspected;
  EXPECT_EQ(Of(Write("plain", "#!/bin/sh\nexit 0\n"), &inspected), Linkage::kPreload);
  EXPECT_EQ(inspected, "/bin/sh");
  EXPECT_EQ(Of(Write("env", "#!/usr/bin/env sh\n"), &inspected), Linkage::kPreload);
  EXPECT_NE(inspected.find("/sh"), std::string::npos) << inspected;
  EXPECT_EQ(Of(Write("env_s", "#! /usr/bin/env -S LC_ALL=C sh -e\n")), Linkage::kPreload);
  EXPECT_EQ(Of(Write("linked", std::string("#!") + LINKED_PROGRAM + " -v\n"), &inspected),
            Linkage::kLinked);
  EXPECT_EQ(inspected, LINKED_PROGRAM);
  EXPECT_EQ(Of(Write("nowhere", "#!/usr/bin/env no-such-interpreter-42\n")), Linkage::kUnknown);
  EXPECT_EQ(Of(Write("text", "just text\n")), Linkage::kUnknown);
  // Scripts of scripts: followed as far as Linux runs them (a chain of 5).
  std::string previous = Write("s0", "#!/bin/sh\n");
  for (int depth = 1; depth <= 5; ++depth)
    previous = Write("s" + std::to_string(depth), "#!" + previous + "\n");
  EXPECT_EQ(Of(dir_ + "/s4"), Linkage::kPreload);
  EXPECT_EQ(Of(dir_ + "/s5"), Linkage::kUnknown);
}

// RankBaseEnvironment over ENTRIES.
std::vector<std::string> RankEnv(std::vector<std::string> entries, const std::string& program) {
  std::vector<char*> environment;
  for (std::string& entry : entries) environment.push_back(entry.data());
  environment.push_back(nullptr);
  return RankBaseEnvironment(environment.data(), program);
}

std::string PreloadOf(const std::vector<std::string>& env) {
  std::string found = "(unset)";
  for (const std::string& entry : env)
    if (entry.rfind("LD_PRELOAD=", 0) == 0) found = entry.substr(11);
  return found;
}

TEST(RankBaseEnvironmentTest, UserPreloadFirstThenLibbdmpi) {
  std::vector<std::string> env =
      RankEnv({"PATH=/usr/bin:/bin", "BDMPI_RANKS_LD_PRELOAD=/x/libprobe.so",
               "BDMPI_PRELOAD=/y/libbdmpi.so.0"},
              "/bin/sh");
  EXPECT_EQ(PreloadOf(env), "/x/libprobe.so:/y/libbdmpi.so.0");
  EXPECT_EQ(std::count(env.begin(), env.end(), "PATH=/usr/bin:/bin"), 1);
  // Only libbdmpi, found beside this test's bdmprun build (lib/).
  std::string alone = PreloadOf(RankEnv({"PATH=/usr/bin:/bin"}, "/bin/sh"));
  EXPECT_NE(alone.find("/libbdmpi.so.0"), std::string::npos) << alone;
  EXPECT_EQ(alone.find(':'), std::string::npos) << alone;
}

TEST(RankBaseEnvironmentTest, NoPreloadWhereNotNeededOrTurnedOff) {
  EXPECT_EQ(PreloadOf(RankEnv({"BDMPI_PRELOAD=/y/libbdmpi.so.0"}, LINKED_PROGRAM)), "(unset)");
  EXPECT_EQ(PreloadOf(RankEnv({"BDMPI_RANKS_LD_PRELOAD=/x/a.so /x/b.so"}, LINKED_PROGRAM)),
            "/x/a.so /x/b.so");
  EXPECT_EQ(PreloadOf(RankEnv({"BDMPI_PRELOAD=off", "BDMPI_RANKS_LD_PRELOAD=/x/a.so"},
                              "/bin/sh")),
            "/x/a.so");
  EXPECT_EQ(PreloadOf(RankEnv({"BDMPI_PRELOAD=/y/libbdmpi.so.0"}, STATIC_PROGRAM)), "(unset)");
  // A libbdmpi the user preloads is kept as given, not doubled.
  EXPECT_EQ(PreloadOf(RankEnv({"BDMPI_PRELOAD=/y/libbdmpi.so.0",
                               "BDMPI_RANKS_LD_PRELOAD=/z/libbdmpi.so:/x/a.so"},
                              "/bin/sh")),
            "/z/libbdmpi.so:/x/a.so");
  // Started without bdmpiexec, the master's own LD_PRELOAD is the ranks'.
  EXPECT_EQ(PreloadOf(RankEnv({"BDMPI_PRELOAD=/y/libbdmpi.so.0", "LD_PRELOAD=/x/a.so"},
                              "/bin/sh")),
            "/x/a.so:/y/libbdmpi.so.0");
}

TEST(RankBaseEnvironmentTest, DropsWhatTheMasterSetsAndTheLaunchMarks) {
  std::vector<std::string> env = RankEnv(
      {"KEEP=1", "OMPI_COMM_WORLD_SIZE=2", "PMIX_RANK=0", "BDMPI_JOB_ID=bogus",
       "BDMPI_NODE=7", "BDMPI_SLAVE=9", "BDMPI_WORLD_SIZE=99", "BDMPI_MASTER_PID=1",
       "BDMPI_SLAVE_TOKEN=5", "BDMPI_SPILL_DIR=/x", "BDMPI_DEFER_POSTS=1",
       "BDMPI_LAUNCH_SECRET=s", "BDMPI_IN_LAUNCH=12", "BDMPI_SINGLETON_START=13",
       "BDMPI_RANKS_LD_PRELOAD=", "BDMPI_LOG=debug", "BDMPI_PRELOAD=off"},
      LINKED_PROGRAM);
  EXPECT_EQ(env, (std::vector<std::string>{"KEEP=1", "BDMPI_LOG=debug", "BDMPI_PRELOAD=off"}));
}

}  // namespace
}  // namespace bdmpi
