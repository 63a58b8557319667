/*
 * iprobe: polling with MPI_Iprobe. Each rank sends one message to its right
 * neighbour (itself with one rank) and polls MPI_Iprobe for the one from its
 * left until it reports a message, then receives it.
 *
 * The MPI progress rule says repeated MPI_Iprobe calls must eventually see
 * a message that was sent; under BDMPI with fewer running slaves than
 * slaves, that needs an unsuccessful Iprobe to let the sender run, or this
 * program hangs (the runner's timeout turns that into a failure).
 *
 * Also checks that Iprobe reports no message for a tag nobody sends, both
 * before and after the real traffic.
 */
#include "check.h"

enum { kTag = 3, kUnusedTag = 999 };

static void expect_nothing(void) {
  int flag = -1;
  MPI_Status st;
  MPI_Iprobe(MPI_ANY_SOURCE, kUnusedTag, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag == 0, "Iprobe found a message with tag %d that nobody sent",
        kUnusedTag);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  expect_nothing();

  /* Two sizes: one below and one above the memory/disk threshold. */
  const size_t sizes[] = {100, 70000};
  for (int s = 0; s < 2; ++s) {
    const size_t bytes = sizes[s];
    unsigned char *out = xmalloc(bytes), *in = xmalloc(bytes);
    fill_pattern(out, bytes, msg_seed(rank, right, bytes));
    MPI_Request req;
    MPI_Isend(out, (int)bytes, MPI_BYTE, right, kTag, MPI_COMM_WORLD, &req);

    int flag = 0;
    long polls = 0;
    MPI_Status st;
    while (!flag) {
      MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &flag, &st);
      ++polls;
    }
    CHECK_STATUS(st, left, kTag, MPI_BYTE, bytes);
    /* A successful Iprobe does not consume the message: probe it again. */
    flag = 0;
    MPI_Iprobe(left, kTag, MPI_COMM_WORLD, &flag, &st);
    CHECK(flag == 1, "second Iprobe lost the message after %ld polls", polls);
    MPI_Recv(in, (int)bytes, MPI_BYTE, left, kTag, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, left, kTag, MPI_BYTE, bytes);
    CHECK_PATTERN(in, bytes, msg_seed(left, rank, bytes), "polled message");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(out);
    free(in);
    /* Without this, a fast rank's next message could be the one probed. */
    MPI_Barrier(MPI_COMM_WORLD);
  }

  expect_nothing();
  MPI_Finalize();
  return 0;
}
