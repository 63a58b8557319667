/*
 * no_space: rank 0 sends --count messages of --bytes bytes (default one of
 * 8 MiB) to the last rank, which receives and verifies them. Run by
 * tests/jobs/no_space.sh with the scratch directory on a small tmpfs, so
 * that BDMPI cannot write the spill files these messages need.
 *
 * Default: MPI_ERRORS_ARE_FATAL. The job must end quickly with a message
 * naming the scratch directory and ENOSPC, whichever process (the sending
 * rank, a master, a master's network thread) fails to write.
 *
 * --bcast: rank 0 broadcasts one message of --bytes instead (fatal only):
 * across nodes the other masters receive it into spill files of their own.
 *
 * With room on the disk and -nr 1, rank 0's sends pile up at the master
 * before the last rank runs: tests/jobs/CMakeLists.txt runs 128 MiB of them
 * in a 64 MiB memory cgroup, where the master must spill most of them.
 *
 * --pile-up: rank 0 starts every send with MPI_Isend and then sends its list;
 * the last rank waits for the list before receiving any message. Under BDMPI
 * all --count messages are then buffered by the masters at once, whatever the
 * timing, so a budget and a scratch directory smaller than their sum must run
 * out; without it a fast receiver can drain them as they come (fatal only).
 *
 * --return: MPI_ERRORS_RETURN. Every send either succeeds or returns
 * MPI_ERR_NO_SPACE; the last rank receives and verifies what arrives, then
 * compares with rank 0's list of the sends that succeeded (a small message
 * that needs no spill file), and an allreduce shows that the job carried on.
 * --expect-no-space (BDMPI on a full disk) makes a successful first send an
 * error: the test would prove nothing. Under Open MPI no file is written,
 * so the program passes as plain correct MPI.
 */
#include "check.h"

/* Rank 0's list of the messages it sent: a tag above every message's. */
enum { kTagSent = 32767 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size(), last = size - 1;
  const size_t bytes = (size_t)arg_ll(argc, argv, "--bytes", 8 << 20);
  const int count = (int)arg_ll(argc, argv, "--count", 1);
  const int handle_errors = arg_flag(argc, argv, "--return");
  const int expect_no_space = arg_flag(argc, argv, "--expect-no-space");
  const int pile_up = arg_flag(argc, argv, "--pile-up");
  if (handle_errors)
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(count >= 1 && (count <= 64 || !pile_up), "--count %d out of 1..64 with --pile-up",
        count);
  CHECK(count < kTagSent, "--count %d: a tag per message, below %d", count, kTagSent);
  CHECK(!(pile_up && handle_errors), "--pile-up needs fatal errors");
  unsigned char *buf = xmalloc(bytes);

  if (arg_flag(argc, argv, "--bcast")) {
    if (rank == 0) fill_pattern(buf, bytes, msg_seed(0, 0, bytes));
    CHECK_MPI(MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD));
    CHECK_PATTERN(buf, bytes, msg_seed(0, 0, bytes), "broadcast");
  } else if (rank == 0 && last != 0 && pile_up) {
    /* Every message must be buffered before the receiver looks: one buffer
     * per pending send, and the list goes after them (non-overtaking). */
    unsigned char *bufs = xmalloc(bytes * (size_t)count);
    MPI_Request reqs[64];
    char sent[64];
    for (int i = 0; i < count; ++i) {
      fill_pattern(bufs + bytes * (size_t)i, bytes, msg_seed(0, last, bytes) + (uint64_t)i);
      CHECK_MPI(MPI_Isend(bufs + bytes * (size_t)i, (int)bytes, MPI_BYTE, last, i,
                          MPI_COMM_WORLD, &reqs[i]));
      sent[i] = 1;
    }
    CHECK_MPI(MPI_Send(sent, count, MPI_CHAR, last, kTagSent, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(count, reqs, MPI_STATUSES_IGNORE));
    free(bufs);
  } else if (rank == 0 && last != 0) {
    char *sent = calloc((size_t)count, 1);
    for (int i = 0; i < count; ++i) {
      fill_pattern(buf, bytes, msg_seed(0, last, bytes) + (uint64_t)i);
      int rc = MPI_Send(buf, (int)bytes, MPI_BYTE, last, i, MPI_COMM_WORLD);
      int cls = error_class_of(rc);
      CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_NO_SPACE,
            "send %d of %zu bytes: error class %d, want MPI_SUCCESS or "
            "MPI_ERR_NO_SPACE (%d)", i, bytes, cls, MPI_ERR_NO_SPACE);
      CHECK(!(expect_no_space && i == 0 && rc == MPI_SUCCESS),
            "the first send of %zu bytes succeeded on a full disk", bytes);
      sent[i] = rc == MPI_SUCCESS;
    }
    CHECK_MPI(MPI_Send(sent, count, MPI_CHAR, last, kTagSent, MPI_COMM_WORLD));
    free(sent);
  } else if (rank == last && last != 0) {
    /* Probe rather than wait for the list first: under Open MPI a large
     * send does not complete before its receive is posted. */
    char *got = calloc((size_t)count, 1), *sent = malloc((size_t)count);
    if (pile_up)
      CHECK_MPI(MPI_Probe(0, kTagSent, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (;;) {
      MPI_Status st;
      CHECK_MPI(MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      if (st.MPI_TAG == kTagSent) break;
      CHECK(st.MPI_TAG >= 0 && st.MPI_TAG < count, "unexpected tag %d", st.MPI_TAG);
      CHECK_MPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, &st));
      CHECK_STATUS(st, 0, st.MPI_TAG, MPI_BYTE, (int)bytes);
      CHECK_PATTERN(buf, bytes, msg_seed(0, last, bytes) + (uint64_t)st.MPI_TAG,
                    "large message");
      got[st.MPI_TAG] = 1;
    }
    CHECK_MPI(MPI_Recv(sent, count, MPI_CHAR, 0, kTagSent, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    for (int i = 0; i < count; ++i)
      CHECK(got[i] == sent[i], "message %d: received %d, sent %d", i, got[i], sent[i]);
    free(got);
    free(sent);
  }
  int one = 1, total = 0;
  CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(total == size, "allreduce after the sends: %d, want %d", total, size);
  free(buf);
  MPI_Finalize();
  return 0;
}
