/*
 * probe: the "receive a message of unknown size" idiom. Every rank sends one
 * message to every rank (itself included) with a size and tag the receiver
 * cannot know; each receiver loops MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG),
 * allocates MPI_Get_count bytes and receives exactly that message with
 * MPI_Recv(status.MPI_SOURCE, status.MPI_TAG). A probed message must stay
 * matchable: the receive must get the one the probe described.
 */
#include "check.h"

/* Size and tag of the message src sends to dst; sizes from 0 to ~300 KiB
 * so that both the memory and the disk paths are probed. */
static size_t probe_bytes(int src, int dst) {
  return ((size_t)src * 7919 + (size_t)dst * 104729) % 300000 *
         ((src + dst) % 3 != 0);
}
static int probe_tag(int src, int dst) { return 1 + (src * 31 + dst) % 97; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();

  unsigned char **out = xmalloc((size_t)size * sizeof *out);
  MPI_Request *reqs = xmalloc((size_t)size * sizeof *reqs);
  for (int dst = 0; dst < size; ++dst) {
    const size_t bytes = probe_bytes(rank, dst);
    out[dst] = xmalloc(bytes);
    fill_pattern(out[dst], bytes, msg_seed(rank, dst, bytes));
    MPI_Isend(out[dst], (int)bytes, MPI_BYTE, dst, probe_tag(rank, dst),
              MPI_COMM_WORLD, &reqs[dst]);
  }

  int *seen = calloc((size_t)size, sizeof(int));
  for (int n = 0; n < size; ++n) {
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    const int src = st.MPI_SOURCE;
    CHECK(src >= 0 && src < size && !seen[src], "probe found source %d", src);
    seen[src] = 1;
    int bytes = -1;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    const size_t want = probe_bytes(src, rank);
    CHECK(bytes == (int)want && st.MPI_TAG == probe_tag(src, rank),
          "probe of message from %d: %d bytes tag %d, want %zu bytes tag %d",
          src, bytes, st.MPI_TAG, want, probe_tag(src, rank));
    unsigned char *in = xmalloc((size_t)bytes);
    MPI_Status rst;
    MPI_Recv(in, bytes, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD, &rst);
    CHECK_STATUS(rst, src, st.MPI_TAG, MPI_BYTE, bytes);
    CHECK_PATTERN(in, want, msg_seed(src, rank, want), "probed message");
    free(in);
  }
  free(seen);

  MPI_Waitall(size, reqs, MPI_STATUSES_IGNORE);
  for (int dst = 0; dst < size; ++dst) free(out[dst]);
  free(out);
  free(reqs);
  MPI_Finalize();
  return 0;
}
