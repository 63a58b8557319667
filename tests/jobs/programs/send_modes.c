/*
 * send_modes: the buffered and ready modes, request status, and the
 * sendrecv variants.
 *
 *   * MPI_Bsend, MPI_Ibsend and MPI_Bsend_init with an attached buffer of
 *     the size MPI_Pack_size + MPI_BSEND_OVERHEAD asks for; without one, or
 *     with one too small, a buffered send fails with MPI_ERR_BUFFER;
 *     MPI_Buffer_detach gives back the attached buffer and size.
 *   * MPI_Rsend, MPI_Irsend, MPI_Rsend_init to a receive posted before a
 *     barrier.
 *   * MPI_Request_get_status: complete receives stay requests (their
 *     status is read twice) until MPI_Wait.
 *   * MPI_Send_init with a derived type freed before MPI_Start.
 *   * MPI_Sendrecv_replace with a vector type around the ring; MPI-4's
 *     MPI_Isendrecv and MPI_Isendrecv_replace (where the MPI has them).
 */
#include "check.h"

/* Every other int of 16 holds the rank's values; the gaps hold -7. */
static void fill_ring(int ring[16], int rank) {
  for (int i = 0; i < 16; ++i) ring[i] = i % 2 == 0 ? 100 * rank + i : -7;
}

static void check_ring(const int ring[16], int from, const char *call) {
  for (int i = 0; i < 16; ++i) {
    int want = i % 2 == 0 ? 100 * from + i : -7;
    CHECK(ring[i] == want, "%s: ring[%d] = %d, want %d", call, i, ring[i], want);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Status st;
  int got[3] = {-1, -1, -1};

  /* Buffered sends need an attached buffer that holds them (MPI-3.1
   * 3.6.1; Open MPI sends small ones without, MPICH and BDMPI refuse). */
  int pack_size = 0;
  MPI_Pack_size(1, MPI_INT, comm, &pack_size);
  const int buffer_size = 3 * (pack_size + MPI_BSEND_OVERHEAD);
  char *buffer = xmalloc((size_t)buffer_size);
#ifdef BDMPI
  int value = 0;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Bsend(&value, 1, MPI_INT, right, 1, comm), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Buffer_attach(buffer, buffer_size));
  int big[4096];
  memset(big, 0, sizeof big);
  CHECK_CLASS(MPI_Bsend(big, 4096, MPI_INT, right, 1, comm), MPI_ERR_BUFFER);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
#else
  MPI_Buffer_attach(buffer, buffer_size);
#endif

  MPI_Request reqs[3], persistent;
  int sent[3] = {10 + rank, 20 + rank, 30 + rank};
  for (int i = 0; i < 3; ++i) MPI_Irecv(&got[i], 1, MPI_INT, left, 2 + i, comm, &reqs[i]);
  MPI_Bsend(&sent[0], 1, MPI_INT, right, 2, comm);
  MPI_Request ibsend;
  MPI_Ibsend(&sent[1], 1, MPI_INT, right, 3, comm, &ibsend);
  MPI_Bsend_init(&sent[2], 1, MPI_INT, right, 4, comm, &persistent);
  MPI_Start(&persistent);
  MPI_Wait(&ibsend, MPI_STATUS_IGNORE);
  MPI_Wait(&persistent, MPI_STATUS_IGNORE);
  MPI_Request_free(&persistent);
  MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 3; ++i)
    CHECK(got[i] == 10 * (i + 1) + left, "buffered send %d: got %d, want %d", i, got[i],
          10 * (i + 1) + left);
  void *detached = NULL;
  int detached_size = -1;
  MPI_Buffer_detach(&detached, &detached_size);
  CHECK(detached == buffer && detached_size == buffer_size,
        "MPI_Buffer_detach gave %p/%d, want %p/%d", detached, detached_size, (void *)buffer,
        buffer_size);
  free(buffer);

#ifdef BDMPI
  /* A buffered message holds its room until it is received (Open MPI
   * frees it once the message left, which MPI also allows): to itself. */
  {
    const int n = 1000;
    int *first = xmalloc(n * sizeof(int)), *second = xmalloc(n * sizeof(int));
    int *in = xmalloc(n * sizeof(int));
    for (int i = 0; i < n; ++i) first[i] = i, second[i] = -i;
    int room = 0;
    MPI_Pack_size(n, MPI_INT, comm, &room);
    room += MPI_BSEND_OVERHEAD;
    char *one = xmalloc((size_t)room);
    MPI_Buffer_attach(one, room);
    MPI_Bsend(first, n, MPI_INT, rank, 12, comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Bsend(second, n, MPI_INT, rank, 12, comm), MPI_ERR_BUFFER);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
    MPI_Request flush;
    MPI_Buffer_iflush(&flush);
    int flag = 1;
    MPI_Test(&flush, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "MPI_Buffer_iflush complete before its message was received");
    MPI_Recv(in, n, MPI_INT, rank, 12, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&flush, MPI_STATUS_IGNORE);
    MPI_Bsend(second, n, MPI_INT, rank, 12, comm);  /* the room is free again */
    MPI_Recv(in, n, MPI_INT, rank, 12, comm, MPI_STATUS_IGNORE);
    CHECK(in[1] == -1, "second buffered message: in[1] = %d", in[1]);
    /* Detaching waits until the right neighbour has the message (it
     * posted the receive, but may run only once this rank blocks). */
    MPI_Request from_left;
    MPI_Irecv(in, n, MPI_INT, left, 13, comm, &from_left);
    MPI_Bsend(first, n, MPI_INT, right, 13, comm);
    void *back = NULL;
    int back_size = 0;
    MPI_Buffer_detach(&back, &back_size);
    MPI_Wait(&from_left, MPI_STATUS_IGNORE);
    CHECK(back == one && in[n - 1] == n - 1, "detach gave %p, in[last] %d", back, in[n - 1]);
    free(one);
    free(first);
    free(second);
    free(in);
  }
#endif

  /* Ready sends: the receive is posted before the barrier. */
  for (int i = 0; i < 3; ++i) MPI_Irecv(&got[i], 1, MPI_INT, left, 5 + i, comm, &reqs[i]);
  MPI_Barrier(comm);
  MPI_Rsend(&sent[0], 1, MPI_INT, right, 5, comm);
  MPI_Request irsend;
  MPI_Irsend(&sent[1], 1, MPI_INT, right, 6, comm, &irsend);
  MPI_Rsend_init(&sent[2], 1, MPI_INT, right, 7, comm, &persistent);
  MPI_Start(&persistent);
  MPI_Wait(&irsend, MPI_STATUS_IGNORE);
  MPI_Wait(&persistent, MPI_STATUS_IGNORE);
  MPI_Request_free(&persistent);

  /* MPI_Request_get_status until complete; the request stays. */
  for (int i = 0; i < 3; ++i) {
    int flag = 0;
    while (!flag) MPI_Request_get_status(reqs[i], &flag, &st);
    CHECK(reqs[i] != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
    CHECK_STATUS(st, left, 5 + i, MPI_INT, 1);
    MPI_Request_get_status(reqs[i], &flag, &st);
    CHECK(flag, "a complete request is no longer complete");
    CHECK_STATUS(st, left, 5 + i, MPI_INT, 1);
    MPI_Wait(&reqs[i], &st);
    CHECK_STATUS(st, left, 5 + i, MPI_INT, 1);
    CHECK(got[i] == 10 * (i + 1) + left, "ready send %d: got %d", i, got[i]);
  }
  int flag = 0;
  MPI_Request null_request = MPI_REQUEST_NULL;
  MPI_Request_get_status(null_request, &flag, &st);
  CHECK(flag, "MPI_Request_get_status(MPI_REQUEST_NULL) not complete");

  /* Sendrecv_replace with every other int of 16 around the ring. */
  MPI_Datatype every_other;
  MPI_Type_vector(8, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int ring[16];
  fill_ring(ring, rank);
  MPI_Sendrecv_replace(ring, 1, every_other, right, 8, left, 8, comm, &st);
  CHECK_STATUS(st, left, 8, MPI_INT, 8);
  check_ring(ring, left, "MPI_Sendrecv_replace");

  /* A persistent send keeps its derived type after MPI_Type_free. */
  MPI_Datatype pair_type;
  MPI_Type_contiguous(2, MPI_INT, &pair_type);
  MPI_Type_commit(&pair_type);
  int pair[2] = {60 + rank, 61 + rank}, pair_in[2];
  MPI_Send_init(pair, 1, pair_type, right, 11, comm, &persistent);
  MPI_Type_free(&pair_type);
  for (int round = 0; round < 2; ++round) {
    MPI_Request recv;
    MPI_Irecv(pair_in, 2, MPI_INT, left, 11, comm, &recv);
    MPI_Start(&persistent);
    MPI_Wait(&persistent, MPI_STATUS_IGNORE);
    MPI_Wait(&recv, &st);
    CHECK_STATUS(st, left, 11, MPI_INT, 2);
    CHECK(pair_in[0] == 60 + left && pair_in[1] == 61 + left,
          "round %d: persistent send of a freed type gave %d %d", round, pair_in[0], pair_in[1]);
  }
  MPI_Request_free(&persistent);

#if MPI_VERSION >= 4 || defined(BDMPI)
  MPI_Request req;
  int sent_value = 50 + rank;
  MPI_Isendrecv(&sent_value, 1, MPI_INT, right, 9, &got[0], 1, MPI_INT, left, 9, comm, &req);
  MPI_Wait(&req, &st);
  CHECK_STATUS(st, left, 9, MPI_INT, 1);
  CHECK(got[0] == 50 + left, "MPI_Isendrecv got %d", got[0]);
  fill_ring(ring, rank);
  MPI_Isendrecv_replace(ring, 1, every_other, right, 10, left, 10, comm, &req);
  MPI_Wait(&req, &st);
  CHECK_STATUS(st, left, 10, MPI_INT, 8);
  check_ring(ring, left, "MPI_Isendrecv_replace");
#endif
  MPI_Type_free(&every_other);

  MPI_Barrier(comm);
  MPI_Finalize();
  return 0;
}
