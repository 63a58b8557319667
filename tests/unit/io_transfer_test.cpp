// MPI-IO's data movement (src/slave/io/transfer.*) on a scratch file: reads
// through a view with gaps (data sieving: one request for close pieces)
// stop at the end of the file with the right count, and writes land where
// the view says. Compiled against our mpi.h.
#include "slave/io/transfer.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

namespace bdmpi::io {
namespace {

// Every third int of the file (a vector of 1 int resized to 3 ints).
MPI_Datatype EveryThirdInt() {
  MPI_Datatype one = NewVectorType(1, 1, 4, MPI_INT, "test");
  MPI_Datatype third = NewResizedType(one, 0, 12);
  CommitType(&third);
  FreeType(&one);
  return third;
}

class IoTransferTest : public testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/io_transfer_test.XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    unlink(path);
    file_.fd.reset(fd);
    file_.path = path;
    file_.amode = MPI_MODE_RDWR;
  }
  FileInfo file_;
};

TEST_F(IoTransferTest, SievedReadStopsAtTheEndOfFile) {
  std::vector<int> ints(100);
  for (int i = 0; i < 100; ++i) ints[static_cast<std::size_t>(i)] = i;
  ASSERT_EQ(pwrite(file_.fd.get(), ints.data(), 400, 0), 400);
  MPI_Datatype third = EveryThirdInt();
  file_.view = View(0, MPI_INT, third, true);
  std::vector<int> got(40, -1);
  // Ints 0, 3, ..., 99: 34 of the 40 asked for.
  EXPECT_EQ(ReadStream(file_, 0, got.data(), 40, MPI_INT).stream, 34u * 4);
  for (int i = 0; i < 34; ++i) EXPECT_EQ(got[static_cast<std::size_t>(i)], 3 * i) << i;
  EXPECT_EQ(got[34], -1);
  FreeType(&third);
}

TEST_F(IoTransferTest, WriteThroughAViewLeavesTheGaps) {
  std::vector<int> zeros(30, 0);
  ASSERT_EQ(pwrite(file_.fd.get(), zeros.data(), 120, 0), 120);
  MPI_Datatype third = EveryThirdInt();
  file_.view = View(4, MPI_INT, third, true);
  std::vector<int> mine = {7, 8, 9, 10};
  EXPECT_EQ(WriteStream(file_, 4, mine.data(), 4, MPI_INT).stream, 16u);  // from etype 1
  std::vector<int> back(30);
  ASSERT_EQ(pread(file_.fd.get(), back.data(), 120, 0), 120);
  for (int i = 0; i < 30; ++i) {
    int want = (i >= 4 && (i - 1) % 3 == 0 && (i - 4) / 3 < 4) ? 7 + (i - 4) / 3 : 0;
    EXPECT_EQ(back[static_cast<std::size_t>(i)], want) << i;
  }
  FreeType(&third);
}

// external32 through the same view: big-endian ints where the view puts
// them (a portable type: the sizes match, so the layout is the native
// one), read back as they were; the status counts memory bytes, and a
// long is 4 bytes in the file.
TEST_F(IoTransferTest, External32IsBigEndianThroughTheView) {
  std::vector<int> zeros(12, 0);
  ASSERT_EQ(pwrite(file_.fd.get(), zeros.data(), 48, 0), 48);
  MPI_Datatype third = EveryThirdInt();
  auto external32 = Datarep::Find("external32");
  file_.view = View(0, MPI_INT, third, true, *external32);
  file_.datarep = external32;
  std::vector<int> mine = {0x01020304, -2, 7, 0x7f000001};
  Moved wrote = WriteStream(file_, 0, mine.data(), 4, MPI_INT);
  EXPECT_EQ(wrote.stream, 16u);
  EXPECT_EQ(wrote.wire, 16u);
  unsigned char raw[48];
  ASSERT_EQ(pread(file_.fd.get(), raw, 48, 0), 48);
  EXPECT_EQ(raw[0], 0x01);
  EXPECT_EQ(raw[3], 0x04);
  EXPECT_EQ(raw[4], 0);  // the gap
  EXPECT_EQ(raw[12], 0xff);
  EXPECT_EQ(raw[15], 0xfe);
  std::vector<int> back(4, 0);
  EXPECT_EQ(ReadStream(file_, 0, back.data(), 4, MPI_INT).wire, 16u);
  EXPECT_EQ(back, mine);
  FreeType(&third);

  file_.view = View(0, MPI_LONG, MPI_LONG, true, *external32);
  long value = -3;
  EXPECT_EQ(WriteStream(file_, 0, &value, 1, MPI_LONG).stream, 4u);
  long got = 0;
  Moved read = ReadStream(file_, 0, &got, 1, MPI_LONG);
  EXPECT_EQ(read.stream, 4u);
  EXPECT_EQ(read.wire, 8u);
  EXPECT_EQ(got, -3);
  EXPECT_EQ(external32->FileExtent(MPI_LONG), 4);
}

}  // namespace
}  // namespace bdmpi::io
