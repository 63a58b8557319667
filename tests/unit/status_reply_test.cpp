// The live status's reply file (common/status_reply.h): the master answers
// only an asker that made its request in the job's private directory, the
// asker reads the whole text, and nothing is left behind.
#include <gtest/gtest.h>

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "common/error.h"
#include "common/status_reply.h"

namespace bdmpi {
namespace {

class StatusReplyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/bdmpi-status-test-XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    dir_ = name;  // mkdtemp makes it 0700
  }
  void TearDown() override { rmdir(dir_.c_str()); }

  int Entries() const {
    int n = 0;
    DIR* dir = opendir(dir_.c_str());
    while (dirent* entry = readdir(dir)) n += entry->d_name[0] != '.';
    closedir(dir);
    return n;
  }

  std::string dir_;
};

TEST_F(StatusReplyTest, AnswersTheAskerThroughItsRequest) {
  {
    StatusRequest request(dir_);
    std::string text(10000, 'x');  // more than one read
    text += "\nbdmpi: status of node 1 (SIGUSR1):\n";
    EXPECT_TRUE(WriteStatusReply(dir_, getpid(), text));
    std::optional<std::string> answer =
        request.Wait(std::chrono::milliseconds(1000), [] { return true; });
    ASSERT_TRUE(answer.has_value());
    EXPECT_EQ(*answer, text);
  }
  EXPECT_EQ(Entries(), 0);
}

TEST_F(StatusReplyTest, NoRequestNoFile) {
  // A SIGUSR1 from someone who made no request: the caller prints instead.
  EXPECT_FALSE(WriteStatusReply(dir_, getpid(), "text"));
  EXPECT_FALSE(WriteStatusReply(dir_, 0, "text"));
  EXPECT_EQ(Entries(), 0);
}

TEST_F(StatusReplyTest, WaitEndsWhenTheMasterIsGoneOrLate) {
  StatusRequest request(dir_);
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(request.Wait(std::chrono::milliseconds(5000), [] { return false; }).has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_FALSE(request.Wait(std::chrono::milliseconds(100), [] { return true; }).has_value());
}

TEST_F(StatusReplyTest, RefusesADirectoryOthersCanRead) {
  chmod(dir_.c_str(), 0755);
  EXPECT_THROW(StatusRequest request(dir_), Error);
  EXPECT_FALSE(WriteStatusReply(dir_, getpid(), "text"));
  chmod(dir_.c_str(), 0700);
}

}  // namespace
}  // namespace bdmpi
