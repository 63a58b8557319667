/*
 * storage: large allocations must keep their contents bit for bit across
 * any number of blocking MPI calls, however the runtime pages them out and
 * back (under BDMPI: storage-backed blocks written back and dropped at every
 * blocking point when --node-memory is tiny). Each rank holds
 *   - a read-only array, filled once and checked at every step;
 *   - a read-write array of which half the pages change at every step;
 *   - a calloc'ed array, 64 KiB-aligned arrays (posix_memalign,
 *     aligned_alloc) and an array that grows by realloc from below to
 *     above 1 MiB and keeps growing;
 *   - a block freed and calloc'ed again at every step, which must be zero.
 * Between steps it blocks in Barrier, Allreduce (of a checksum that every
 * rank checks) and a ring Sendrecv of a 1 MiB + 1 buffer.
 *
 * Usage: storage [--mib N] [--steps S] [--crash-step C] [--held H] [--warm W] [--touch]
 *                [--cycle] [--fresh | --fresh-reads] [--dead] [--touched] [--rewritten]
 *   N MiB per array (default 3), S steps (default 6); with --crash-step the
 *   last rank dies of SIGSEGV at step C (to check what a crash leaves).
 *   With --held, each rank sends H messages of 512 KiB + 8 (above the window,
 *   below the storage threshold) to the next rank right after MPI_Init,
 *   before it allocates anything large, and that rank
 *   receives them only after the last step: under BDMPI they wait in
 *   memory while the node has room, and must move to disk (bit for bit)
 *   once the arrays fill a small --node-memory.
 *   With --warm, each rank first exchanges W messages of 512 KiB with its
 *   neighbours, all in flight at once, and checks them: under BDMPI they
 *   leave W warm payload segments per rank behind, whose pages count
 *   against --node-memory and must be given back for the arrays.
 *   With --fresh, each rank ends with a receive into a buffer whose pages
 *   are on disk (see receive_fresh); with --fresh-reads also checks that
 *   it read under 1 MiB from disk (for budgets that keep messages in
 *   memory: a message spilled to disk is read from there too).
 *   With --touch, only touch_steps (below) runs, over one array of N MiB;
 *   with --cycle, only cycle_steps.
 *   With --dead, each rank ends with collectives_dead (below).
 *   With --touched, each rank ends with touched_reads (below).
 *   With --rewritten, each rank ends with rewritten_reads (below).
 */
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#ifdef BDMPI
#include <bdmpi.h>
#endif

static uint64_t pattern(int rank, int array, size_t word, int version) {
  uint64_t x = ((uint64_t)rank << 48) ^ ((uint64_t)array << 40) ^ (uint64_t)word ^
               ((uint64_t)version << 32);
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ull;
  x ^= x >> 29;
  return x;
}

static void fill(uint64_t *a, size_t words, int rank, int array, int version) {
  for (size_t i = 0; i < words; ++i) a[i] = pattern(rank, array, i, version);
}

static void verify(const uint64_t *a, size_t words, int rank, int array,
                   int version, const char *what, int step) {
  for (size_t i = 0; i < words; ++i) {
    uint64_t want = pattern(rank, array, i, version);
    CHECK(a[i] == want, "%s (step %d): word %zu is %016llx, want %016llx",
          what, step, i, (unsigned long long)a[i], (unsigned long long)want);
  }
}

/* The read-write array: step s rewrites the pages with p % 2 == s % 2, so
 * that a switch-out finds half of them modified since the last one. */
enum { kWordsPerPage = 4096 / 8 };
static int rw_version(size_t word, int step) {
  size_t page = word / kWordsPerPage;
  /* After step s (s >= 0), pages of parity s % 2 hold version s, the others
   * version s - 1 (version -1: the initial fill, version 0). */
  if (step < 0) return 0;
  if ((int)(page % 2) == step % 2) return step + 1;
  return step == 0 ? 0 : step;
}

static void rw_update(uint64_t *a, size_t words, int rank, int step) {
  for (size_t i = 0; i < words; ++i) {
    size_t page = i / kWordsPerPage;
    if ((int)(page % 2) == step % 2) a[i] = pattern(rank, 2, i, step + 1);
  }
}

static void rw_verify(const uint64_t *a, size_t words, int rank, int step) {
  for (size_t i = 0; i < words; ++i) {
    uint64_t want = pattern(rank, 2, i, rw_version(i, step));
    CHECK(a[i] == want, "read-write array (after step %d): word %zu is %016llx, "
          "want %016llx", step, i, (unsigned long long)a[i],
          (unsigned long long)want);
  }
}

static uint64_t checksum(const uint64_t *a, size_t words) {
  uint64_t sum = 0;
  for (size_t i = 0; i < words; ++i) sum += a[i] * (i | 1);
  return sum;
}

/* --warm: `count` messages of 512 KiB + 8 (like --held: above the window,
 * below the storage threshold) to the next rank and from the previous one,
 * all in flight together, checked bit for bit. */
static void exchange_warm(int rank, int size, int count) {
  const size_t words = (1 << 16) + 1;
  uint64_t **out = xmalloc(sizeof(uint64_t *) * (size_t)count);
  uint64_t **in = xmalloc(sizeof(uint64_t *) * (size_t)count);
  MPI_Request *requests = xmalloc(sizeof(MPI_Request) * 2 * (size_t)count);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int k = 0; k < count; ++k) {
    out[k] = xmalloc(words * 8);
    in[k] = xmalloc(words * 8);
    fill(out[k], words, rank, 16 + k, 0);
    MPI_Irecv(in[k], (int)words, MPI_UINT64_T, prev, 200 + k, MPI_COMM_WORLD, &requests[2 * k]);
    MPI_Isend(out[k], (int)words, MPI_UINT64_T, next, 200 + k, MPI_COMM_WORLD,
              &requests[2 * k + 1]);
  }
  MPI_Waitall(2 * count, requests, MPI_STATUSES_IGNORE);
  for (int k = 0; k < count; ++k) {
    verify(in[k], words, prev, 16 + k, 0, "warm-up message", -1);
    free(out[k]);
    free(in[k]);
  }
  free(out);
  free(in);
  free(requests);
}

/* Bytes this process has had read from storage (/proc/self/io), or -1. */
static long long storage_reads(void) {
  FILE *f = fopen("/proc/self/io", "r");
  if (f == NULL) return -1;
  char line[128];
  long long bytes = -1;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "read_bytes: %lld", &bytes) == 1) break;
  fclose(f);
  return bytes;
}

/* --fresh: messages that overwrite a buffer whose pages are on disk.
 * Each rank sends two messages of 4 MiB + 1 KiB to the next rank, then,
 * after a barrier (all messages are with the runtime, none can be written
 * in place), receives them into two buffers of 4 MiB + 3 KiB at an offset
 * of 1000 bytes (messages shorter than the buffers, whose first and last
 * pages are partly theirs): the first buffer resident, the second written
 * back and dropped just before (BDMPI_Release). Checked: the messages and
 * the bytes around them (their old contents), and with `check_reads`
 * under BDMPI that the second receive read under 1 MiB more from disk than
 * the first (the message itself may come from a spill file either way;
 * reading the buffer back would read 4 MiB more). */
static long long receive_into(unsigned char *buffer, size_t buffer_bytes, size_t offset,
                              size_t message_bytes, int prev, int tag) {
  for (size_t i = 0; i < buffer_bytes; ++i) buffer[i] = (unsigned char)(i % 253);
#ifdef BDMPI
  if (tag == 301) CHECK_MPI(BDMPI_Release(buffer, buffer_bytes));
#endif
  long long before = storage_reads();
  MPI_Recv(buffer + offset, (int)message_bytes, MPI_BYTE, prev, tag, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  long long read = before < 0 ? -1 : storage_reads() - before;
  for (size_t i = 0; i < buffer_bytes; ++i) {
    int in_message = i >= offset && i < offset + message_bytes;
    unsigned char want = in_message ? (unsigned char)(prev * 7 + tag + (i - offset) % 251)
                                    : (unsigned char)(i % 253);
    CHECK(buffer[i] == want, "receive %d: byte %zu is %u, want %u (%s)", tag, i, buffer[i],
          want, in_message ? "the message" : "outside the message");
  }
  return read;
}

static void receive_fresh(int rank, int size, int check_reads) {
  const size_t buffer_bytes = (4 << 20) + 3072, message_bytes = (4 << 20) + 1024;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  unsigned char *out[2], *buffer = xmalloc(buffer_bytes);
  MPI_Request requests[2];
  for (int k = 0; k < 2; ++k) {
    out[k] = xmalloc(message_bytes);
    for (size_t i = 0; i < message_bytes; ++i)
      out[k][i] = (unsigned char)(rank * 7 + 300 + k + i % 251);
    MPI_Isend(out[k], (int)message_bytes, MPI_BYTE, next, 300 + k, MPI_COMM_WORLD,
              &requests[k]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  long long resident = receive_into(buffer, buffer_bytes, 1000, message_bytes, prev, 300);
  long long released = receive_into(buffer, buffer_bytes, 1000, message_bytes, prev, 301);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
#ifdef BDMPI
  CHECK(!check_reads || resident < 0 || released - resident < (1 << 20),
        "receive into a released buffer: %lld bytes read from storage against %lld into a "
        "resident one: the buffer was read back", released, resident);
#else
  (void)check_reads;
  (void)resident;
  (void)released;
#endif
  free(out[0]);
  free(out[1]);
  free(buffer);
}

/* --dead: collectives whose result overwrites a receive buffer that a
 * switch-out finds while the rank waits in the call (under BDMPI,
 * --node-memory 1m switches a waiting rank out; its whole pages are then
 * dropped unwritten and come back as fresh memory). Each buffer lies at
 * an offset inside a page of a frame of 128 KiB (a storage-backed block
 * under BDMPI: BDMPI_Alloc_storage), and every word of the frame is checked: the result, and the
 * frame's fill around it and in the gaps of the receive's type (the
 * pages it shares with the buffer). MPI_Bcast, MPI_Allreduce in place and
 * not, MPI_Alltoallv with blocks next to each other or one word apart
 * and with a type with holes. Round 0 fills the frames just before the
 * call (dirty pages at the switch-out), round 1 before a barrier (the
 * pages in the storage file at the call), round 2 the nonblocking forms
 * of the broadcast and the alltoallvs, completed by MPI_Wait. */
enum { kDeadArray = 40 };
static const size_t kFrameWords = 1 << 14;

static uint64_t *frame_new(int rank, int which, int round) {
#ifdef BDMPI
  uint64_t *frame = BDMPI_Alloc_storage(kFrameWords * 8);
  CHECK(frame != NULL, "BDMPI_Alloc_storage failed");
#else
  uint64_t *frame = xmalloc(kFrameWords * 8);
#endif
  fill(frame, kFrameWords, rank, kDeadArray + which, round);
  return frame;
}

static void frame_check(uint64_t *frame, uint64_t *want, const char *what, int round) {
  for (size_t i = 0; i < kFrameWords; ++i)
    CHECK(frame[i] == want[i], "%s (round %d): word %zu of the frame is %016llx, want %016llx",
          what, round, i, (unsigned long long)frame[i], (unsigned long long)want[i]);
#ifdef BDMPI
  BDMPI_Free_storage(frame);
  BDMPI_Free_storage(want);
#else
  free(frame);
  free(want);
#endif
}

static void dead_bcast(int rank, int round) {
  const size_t at = 125, count = 6000;
  uint64_t *frame = frame_new(rank, 0, round), *want = frame_new(rank, 0, round);
  for (size_t i = 0; i < count; ++i) want[at + i] = pattern(0, kDeadArray + 10, i, round);
  if (rank == 0) memcpy(frame + at, want + at, count * 8);
  if (round == 1) MPI_Barrier(MPI_COMM_WORLD);
  if (round == 2) {
    MPI_Request request;
    CHECK_MPI(MPI_Ibcast(frame + at, (int)count, MPI_UINT64_T, 0, MPI_COMM_WORLD, &request));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Bcast(frame + at, (int)count, MPI_UINT64_T, 0, MPI_COMM_WORLD));
  }
  frame_check(frame, want, "MPI_Bcast", round);
}

static void dead_allreduce(int rank, int size, int round, int in_place) {
  const size_t at = in_place ? 511 : 333, count = 5001;
  const int array = kDeadArray + 11 + in_place;
  uint64_t *frame = frame_new(rank, 1 + in_place, round);
  uint64_t *want = frame_new(rank, 1 + in_place, round);
  uint64_t *send = in_place ? NULL : xmalloc(count * 8);
  for (size_t i = 0; i < count; ++i) {
    uint64_t sum = 0;
    for (int r = 0; r < size; ++r) sum += pattern(r, array, i, round);
    want[at + i] = sum;
    (in_place ? frame + at : send)[i] = pattern(rank, array, i, round);
  }
  if (round == 1) MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : send, frame + at, (int)count, MPI_UINT64_T,
                          MPI_SUM, MPI_COMM_WORLD));
  frame_check(frame, want, in_place ? "MPI_Allreduce in place" : "MPI_Allreduce", round);
  free(send);
}

/* Rank `from`'s k-th word for rank `to` in the alltoallv of `array`. */
static uint64_t dead_word(int from, int to, int array, size_t k, int round) {
  return pattern(from, kDeadArray + array, (size_t)to * 100000 + k, round);
}

/* holes == 0: blocks of MPI_UINT64_T, one word apart after odd ranks'
 * and next to each other after even ones'; holes == 1: elements of two
 * words in an extent of three, the third the frame's. */
static void dead_alltoallv(int rank, int size, int round, int holes) {
  const int array = 20 + holes;
  const size_t at = holes ? 3 : 9, stride = holes ? 3 : 1, per = holes ? 2 : 1;
  MPI_Datatype type = MPI_UINT64_T;
  if (holes) {
    MPI_Datatype two;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_UINT64_T, &two));
    CHECK_MPI(MPI_Type_create_resized(two, 0, 24, &type));
    CHECK_MPI(MPI_Type_commit(&type));
    CHECK_MPI(MPI_Type_free(&two));
  }
  const size_t ints = sizeof(int) * (size_t)size;
  int *scounts = xmalloc(ints), *sdispls = xmalloc(ints);
  int *rcounts = xmalloc(ints), *rdispls = xmalloc(ints);
  /* Elements from rank r to rank j. */
#define DEAD_COUNT(r, j) (holes ? 200 + 50 * (((r) + (j)) % 3) : 700 + 150 * (((r) + 2 * (j)) % 7))
  size_t sent = 0;
  int placed = 0;
  for (int j = 0; j < size; ++j) {
    scounts[j] = (int)per * DEAD_COUNT(rank, j);
    sdispls[j] = (int)sent;
    sent += (size_t)scounts[j];
    rcounts[j] = DEAD_COUNT(j, rank);
    rdispls[j] = placed;
    placed += rcounts[j] + (!holes && j % 2 == 1);
  }
#undef DEAD_COUNT
  uint64_t *send = xmalloc(sent * 8);
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < scounts[j]; ++k)
      send[sdispls[j] + k] = dead_word(rank, j, array, (size_t)k, round);
  uint64_t *frame = frame_new(rank, 3 + holes, round), *want = frame_new(rank, 3 + holes, round);
  CHECK(at + (size_t)placed * stride <= kFrameWords, "alltoallv: frame too small");
  for (int j = 0; j < size; ++j)
    for (size_t e = 0; e < (size_t)rcounts[j]; ++e)
      for (size_t w = 0; w < per; ++w)
        want[at + ((size_t)rdispls[j] + e) * stride + w] =
            dead_word(j, rank, array, e * per + w, round);
  if (round == 1) MPI_Barrier(MPI_COMM_WORLD);
  if (round == 2) {
    MPI_Request request;
    CHECK_MPI(MPI_Ialltoallv(send, scounts, sdispls, MPI_UINT64_T, frame + at, rcounts, rdispls,
                             type, MPI_COMM_WORLD, &request));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Alltoallv(send, scounts, sdispls, MPI_UINT64_T, frame + at, rcounts, rdispls,
                            type, MPI_COMM_WORLD));
  }
  frame_check(frame, want, holes ? "MPI_Alltoallv with holes" : "MPI_Alltoallv", round);
  if (holes) CHECK_MPI(MPI_Type_free(&type));
  free(send);
  free(scounts);
  free(sdispls);
  free(rcounts);
  free(rdispls);
}

static void collectives_dead(int rank, int size) {
  for (int round = 0; round < 3; ++round) {
    dead_bcast(rank, round);
    if (round < 2) dead_allreduce(rank, size, round, 0);
    if (round < 2) dead_allreduce(rank, size, round, 1);
    dead_alltoallv(rank, size, round, 1);
    dead_alltoallv(rank, size, round, 0);
  }
}

/* --touch: what a rank touches after a resume differs by where it blocked.
 * Out of the barrier each rank reads its whole array; out of the three
 * allreduces of a step it touches only a small vector, so under BDMPI,
 * with its array switched out, it needs room for that vector only and
 * the ranks resident next to it stay (the master admits a resume on what
 * the last one out of the same call touched). At the last step a rank
 * resumed out of the allreduce reads its whole array after all, far
 * more than it was admitted on, and stays there a while: the master must
 * see it grow (-v counts it) and make room while it runs. */
static void touch_steps(int rank, int size, size_t mib, int steps) {
  const size_t words = (mib << 20) / 8, small_words = 4096;
  uint64_t *big = xmalloc(words * 8);
  fill(big, words, rank, 1, 0);
  uint64_t *small = xmalloc(small_words * 8);
  for (size_t i = 0; i < small_words; ++i) small[i] = 0;
  for (int step = 0; step < steps; ++step) {
    verify(big, words, rank, 1, 0, "array out of the barrier", step);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 3; ++k) {
      for (size_t i = 0; i < small_words; ++i) small[i] += (uint64_t)(k + 1);
      uint64_t mine = small[(size_t)rank % small_words] + (uint64_t)rank, total = 0;
      MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      uint64_t want = (uint64_t)size * small[0] + (uint64_t)size * (uint64_t)(size - 1) / 2;
      CHECK(total == want, "allreduce (step %d, %d): %llu, want %llu", step, k,
            (unsigned long long)total, (unsigned long long)want);
    }
    if (step == steps - 1) {
      verify(big, words, rank, 1, 0, "array out of the allreduce", step);
      usleep(100000); /* the master looks every millisecond; a loaded machine may delay it */
    }
  }
  free(small);
  free(big);
}

/* --cycle: a token goes round the ranks in rank order, and each rank
 * reads its whole array when the token reaches it, so that the ranks run
 * in the same order every round. Under BDMPI with room for a few ranks'
 * arrays, the master switches out, of the waiting ranks, the one that ran
 * last (switch_policy.h): the others stay resident for their next turn,
 * and a round switches out fewer ranks than there are (-v counts them). */
static void cycle_steps(int rank, int size, size_t mib, int steps) {
  const size_t words = (mib << 20) / 8;
  uint64_t *big = xmalloc(words * 8);
  fill(big, words, rank, 1, 0);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int token = -1;
  for (int step = 0; step < steps; ++step) {
    if (rank != 0 || step > 0) {
      MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(token == (rank == 0 ? step - 1 : step), "cycle token (step %d): %d", step, token);
    }
    verify(big, words, rank, 1, 0, "array at its turn", step);
    token = step;
    MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
  }
  /* The last round's token. */
  if (rank == 0) MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  free(big);
}

/* --touched: each rank holds two arrays of 2 MiB allocated one after the
 * other (neighbours in its storage file under BDMPI) and, for 5 rounds,
 * reads the first after an MPI_Allreduce and the second after an
 * MPI_Barrier, checking every word. Under BDMPI, where --node-memory 1m
 * switches every waiting rank out, a resume out of the allreduce reads
 * back what the last one out of it touched, the first array, and no
 * more: from the third round on, in the rounds that switched it out
 * there, the bytes read from its allreduce to its barrier must stay under
 * 3 MiB (a fault's read-ahead of 8 MiB would read on into the second
 * array). */
static void touched_reads(int rank, int size) {
  const size_t words = (2 << 20) / 8;
  uint64_t *first = xmalloc(words * 8), *second = xmalloc(words * 8);
  fill(first, words, rank, 50, 0);
  fill(second, words, rank, 51, 0);
  long long most = 0;
  int switched_out = 0, was_switched_out = 0;
  for (int round = 0; round < 5; ++round) {
    uint64_t mine = (uint64_t)rank, total = 0;
    long long before = storage_reads();
    MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == (uint64_t)size * (uint64_t)(size - 1) / 2, "touched: allreduce %llu",
          (unsigned long long)total);
    /* Switched out in the allreduce: the second array, resident at the
     * call, is gone (a rank that ran on through the call may fault the
     * first array in, reading ahead as it will). */
    was_switched_out = switched_out;
    switched_out = 0;
#ifdef BDMPI
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    unsigned char in_core = 1;
    void *probe = (void *)(((uintptr_t)second + page - 1) & ~(page - 1));
    switched_out = mincore(probe, page, &in_core) == 0 && (in_core & 1) == 0;
#endif
    verify(first, words, rank, 50, 0, "touched: first array", round);
    long long after = storage_reads();
    /* Only a round whose last one was switched out there too: the note of
     * what a resume out of the allreduce touches is taken after such a
     * resume, and without it the faults read ahead as they will. */
    if (round >= 2 && switched_out && was_switched_out && before >= 0 && after - before > most)
      most = after - before;
    MPI_Barrier(MPI_COMM_WORLD);
    verify(second, words, rank, 51, 0, "touched: second array", round);
  }
#ifdef BDMPI
  CHECK(most < (3 << 20),
        "touched: %lld bytes read out of an allreduce that touches 2 MiB: read past the array",
        most);
#else
  (void)most;
#endif
  free(first);
  free(second);
}

#ifdef BDMPI
static int page_resident(const void *p) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  unsigned char in_core = 0;
  void *probe = (void *)(((uintptr_t)p + page - 1) & ~(page - 1));
  return mincore(probe, page, &in_core) == 0 && (in_core & 1) != 0;
}

/* Pages of [a, a + bytes) not resident. */
static size_t pages_not_resident(const void *a, size_t bytes) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t start = ((uintptr_t)a + page - 1) & ~(page - 1);
  uintptr_t end = ((uintptr_t)a + bytes) & ~(page - 1);
  size_t pages = (end - start) / page, missing = 0;
  unsigned char *in_core = xmalloc(pages);
  if (mincore((void *)start, end - start, in_core) != 0) missing = pages;
  else
    for (size_t i = 0; i < pages; ++i) missing += (in_core[i] & 1) == 0;
  free(in_core);
  return missing;
}
#endif

/* --rewritten: each rank rewrites a 4 MiB array whole before each of 8
 * MPI_Allreduce calls and checks it after. Under BDMPI, where --node-memory
 * 1m switches every waiting rank out, a block the rank rewrote after its
 * last resume out of the same call is read back before the call returns,
 * whole (into fresh memory, with large reads), not a copy-on-write fault
 * per page as the program overwrites it. A block read back so is all written
 * back at the next switch-out, which therefore cannot tell whether it was
 * rewritten: now and then a resume lets it come back on touch to measure
 * again. So the rounds checked are those where the rank was switched out
 * and the array had come back on touch at its switch-out before (the
 * first switch-out of a new block measures nothing either). The probe for
 * a switch-out: a page of a 12 MiB array (too large for a lazy resume's
 * note of what it touched) read before the call, gone after it. */
static void rewritten_reads(int rank) {
  const size_t words = (4 << 20) / 8, other_words = (12 << 20) / 8;
  uint64_t *rewritten = xmalloc(words * 8), *other = xmalloc(other_words * 8);
  fill(other, other_words, rank, 61, 0);
  int checked = 0;
#ifdef BDMPI
  int came_on_touch = 0;
#endif
  for (int round = 0; round < 8; ++round) {
    fill(rewritten, words, rank, 60, round);
    volatile uint64_t seen = other[other_words / 2];
    (void)seen;
    uint64_t mine = (uint64_t)rank, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
#ifdef BDMPI
    int switched_out = !page_resident(&other[other_words / 2]);
    if (switched_out) {
      size_t missing = pages_not_resident(rewritten, words * 8);
      if (came_on_touch) {
        CHECK(missing == 0, "rewritten: round %d: %zu pages of a rewritten array not read back",
              round, missing);
        ++checked;
      }
      came_on_touch = missing > 0;
    }
#endif
    verify(rewritten, words, rank, 60, round, "rewritten array", round);
  }
  verify(other, other_words, rank, 61, 0, "rewritten: the probe's array", 8);
#ifdef BDMPI
  /* A rank may never wait, but under a tiny budget most do at most calls. */
  int checked_anywhere = 0;
  MPI_Allreduce(&checked, &checked_anywhere, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(checked_anywhere > 0, "rewritten: no rank was switched out again after its array came back on touch");
#else
  (void)checked;
#endif
  free(rewritten);
  free(other);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  size_t mib = 3;
  int steps = 6, crash_step = -1, held = 0, warm = 0, fresh = 0, touch = 0, dead = 0,
      cycle = 0;
  int touched = 0, rewritten = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc) mib = (size_t)atoi(argv[++i]);
    else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) steps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--crash-step") == 0 && i + 1 < argc) crash_step = atoi(argv[++i]);
    else if (strcmp(argv[i], "--held") == 0 && i + 1 < argc) held = atoi(argv[++i]);
    else if (strcmp(argv[i], "--warm") == 0 && i + 1 < argc) warm = atoi(argv[++i]);
    else if (strcmp(argv[i], "--fresh") == 0) fresh = 1;
    else if (strcmp(argv[i], "--fresh-reads") == 0) fresh = 2;
    else if (strcmp(argv[i], "--touch") == 0) touch = 1;
    else if (strcmp(argv[i], "--dead") == 0) dead = 1;
    else if (strcmp(argv[i], "--cycle") == 0) cycle = 1;
    else if (strcmp(argv[i], "--touched") == 0) touched = 1;
    else if (strcmp(argv[i], "--rewritten") == 0) rewritten = 1;
  }
  if (cycle) {
    cycle_steps(rank, size, mib, steps);
    MPI_Finalize();
    return 0;
  }
  if (touch) {
    touch_steps(rank, size, mib, steps);
    MPI_Finalize();
    return 0;
  }
  if (warm > 0) exchange_warm(rank, size, warm);
  /* Array 8 + k: the k-th held message (Isend: Open MPI would wait for the
   * receive in MPI_Send). */
  const size_t held_words = (1 << 16) + 1;
  uint64_t **held_out = xmalloc(sizeof(uint64_t *) * (size_t)(held + 1));
  MPI_Request *held_requests = xmalloc(sizeof(MPI_Request) * (size_t)(held + 1));
  for (int k = 0; k < held; ++k) {
    held_out[k] = xmalloc(held_words * 8);
    fill(held_out[k], held_words, rank, 8 + k, 0);
    MPI_Isend(held_out[k], (int)held_words, MPI_UINT64_T, (rank + 1) % size, 100 + k,
              MPI_COMM_WORLD, &held_requests[k]);
  }
  /* Every rank's messages are with the runtime before anyone allocates. */
  if (held > 0) MPI_Barrier(MPI_COMM_WORLD);
  const size_t bytes = mib << 20;
  const size_t words = bytes / 8;

  uint64_t *ro = xmalloc(bytes);
  fill(ro, words, rank, 1, 0);
  uint64_t *rw = xmalloc(bytes);
  fill(rw, words, rank, 2, 0);
  uint64_t *zeroed = calloc(words, 8);
  CHECK(zeroed != NULL, "calloc of %zu bytes failed", bytes);
  void *aligned1 = NULL;
  CHECK(posix_memalign(&aligned1, 65536, bytes + 8) == 0, "posix_memalign failed");
  CHECK(((uintptr_t)aligned1 & 65535) == 0, "posix_memalign: %p not 64 KiB aligned",
        aligned1);
  uint64_t *al = aligned1;
  fill(al, words, rank, 3, 0);
  uint64_t *al2 = aligned_alloc(1 << 21, bytes);
  CHECK(al2 != NULL && ((uintptr_t)al2 & ((1 << 21) - 1)) == 0,
        "aligned_alloc(2 MiB) gave %p", (void *)al2);
  fill(al2, words, rank, 4, 0);
  /* Grows from 512 KiB (below the default threshold) by 1.5x per step. */
  size_t grow_words = (512 << 10) / 8;
  uint64_t *grow = xmalloc(grow_words * 8);
  fill(grow, grow_words, rank, 5, 0);

  const size_t ring_bytes = (1 << 20) + 1;
  unsigned char *out = xmalloc(ring_bytes), *in = xmalloc(ring_bytes);

  for (int step = 0; step < steps; ++step) {
    if (step == crash_step && rank == size - 1) raise(SIGSEGV);
    /* Before the blocking calls: everything as left by the last step. */
    verify(ro, words, rank, 1, 0, "read-only array", step);
    rw_verify(rw, words, rank, step - 1);
    for (size_t i = 0; i < words; ++i)
      CHECK(zeroed[i] == 0, "calloc'ed array (step %d): word %zu is not zero", step, i);
    verify(al, words, rank, 3, 0, "posix_memalign array", step);
    verify(al2, words, rank, 4, 0, "aligned_alloc array", step);
    verify(grow, grow_words, rank, 5, 0, "realloc'ed array", step);

    rw_update(rw, words, rank, step);
    /* Grow: the old contents must survive, the new part is filled. */
    size_t new_words = grow_words + grow_words / 2;
    grow = realloc(grow, new_words * 8);
    CHECK(grow != NULL, "realloc to %zu bytes failed", new_words * 8);
    verify(grow, grow_words, rank, 5, 0, "realloc'ed array after growing", step);
    for (size_t i = grow_words; i < new_words; ++i) grow[i] = pattern(rank, 5, i, 0);
    grow_words = new_words;
    /* A freed and reallocated block must be zero again (calloc). */
    uint64_t *scratch = xmalloc(bytes);
    memset(scratch, 0xab, bytes);
    free(scratch);
    scratch = calloc(words, 8);
    CHECK(scratch != NULL, "calloc failed");
    for (size_t i = 0; i < words; ++i)
      CHECK(scratch[i] == 0, "calloc after free (step %d): word %zu is %016llx",
            step, i, (unsigned long long)scratch[i]);
    scratch[words / 2] = 1; /* dirty, then freed while resident */
    free(scratch);

    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t mine = checksum(rw, words), total = 0, want = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) {
      /* Every rank's read-write array after this step, recomputed. */
      uint64_t sum = 0;
      for (size_t i = 0; i < words; ++i)
        sum += pattern(r, 2, i, rw_version(i, step)) * (i | 1);
      want += sum;
    }
    CHECK(total == want, "Allreduce of checksums (step %d): %llu, want %llu", step,
          (unsigned long long)total, (unsigned long long)want);
    for (size_t i = 0; i < ring_bytes; ++i) out[i] = (unsigned char)(rank + step + i);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Sendrecv(out, (int)ring_bytes, MPI_BYTE, next, step, in, (int)ring_bytes,
                 MPI_BYTE, prev, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (size_t i = 0; i < ring_bytes; ++i)
      CHECK(in[i] == (unsigned char)(prev + step + i),
            "ring message (step %d): byte %zu wrong", step, i);
    /* After the blocking calls. */
    rw_verify(rw, words, rank, step);
  }
  uint64_t *held_in = xmalloc(held_words * 8);
  for (int k = 0; k < held; ++k) {
    int prev = (rank + size - 1) % size;
    MPI_Recv(held_in, (int)held_words, MPI_UINT64_T, prev, 100 + k, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    verify(held_in, held_words, prev, 8 + k, 0, "held message", steps);
  }
  MPI_Waitall(held, held_requests, MPI_STATUSES_IGNORE);
  for (int k = 0; k < held; ++k) free(held_out[k]);
  free(held_out);
  free(held_requests);
  free(held_in);
  verify(ro, words, rank, 1, 0, "read-only array at the end", steps);
  verify(grow, grow_words, rank, 5, 0, "realloc'ed array at the end", steps);
  /* Shrink across the threshold: the prefix survives. */
  grow = realloc(grow, 4096);
  CHECK(grow != NULL, "realloc down failed");
  verify(grow, 512, rank, 5, 0, "realloc'ed array after shrinking", steps);
  free(grow);
  free(ro);
  free(rw);
  free(zeroed);
  free(al);
  free(al2);
  free(out);
  free(in);
  if (fresh > 0) receive_fresh(rank, size, fresh == 2);
  if (dead) collectives_dead(rank, size);
  if (touched) touched_reads(rank, size);
  if (rewritten) rewritten_reads(rank);
  MPI_Finalize();
  return 0;
}
