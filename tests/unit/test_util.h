// Helpers shared by the unit tests that touch the file system and IPC names.
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/error.h"
#include "common/file_io.h"

// Runs `statement`, expecting an Error whose message contains `text`.
#define EXPECT_ERROR_WITH(statement, text)                                  \
  do {                                                                      \
    try {                                                                   \
      statement;                                                            \
      ADD_FAILURE() << "no error thrown";                                   \
    } catch (const ::bdmpi::Error& error) {                                 \
      EXPECT_NE(std::string(error.what()).find(text), std::string::npos)   \
          << error.what();                                                  \
    }                                                                       \
  } while (0)

namespace bdmpi::test_util {

// A POSIX IPC name ("/bdmpi-unittest-<pid>-<n>-<what>") that no other test,
// no other run of this test and no real job uses.
inline std::string UniqueIpcName(const std::string& what) {
  static std::atomic<int> counter{0};
  return "/bdmpi-unittest-" + std::to_string(getpid()) + "-" +
         std::to_string(counter++) + "-" + what;
}

// The page faults this process has taken so far that read nothing from
// disk (getrusage's ru_minflt).
inline long MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// A fresh directory under the system's temp directory, removed with
// everything in it when the object goes.
class ScopedTempDir {
 public:
  ScopedTempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "bdmpi-unittest-XXXXXX")
            .string();
    if (mkdtemp(pattern.data()) == nullptr)
      ADD_FAILURE() << "mkdtemp " << pattern << " failed";
    else
      path_ = pattern;
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  ~ScopedTempDir() {
    if (!path_.empty()) RemoveTree(path_);
  }

  const std::string& path() const { return path_; }
  std::string Child(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace bdmpi::test_util
