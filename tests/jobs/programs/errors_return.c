/*
 * errors_return: invalid arguments under MPI_ERRORS_RETURN return the
 * error class the MPI standard names, and the job carries on normally:
 *
 *   dest/source out of range (size, -5)        MPI_ERR_RANK
 *   count -1                                   MPI_ERR_COUNT
 *   tag -5 (send or receive), MPI_ANY_TAG on a send   MPI_ERR_TAG
 *   root out of range in Bcast / Reduce        MPI_ERR_ROOT
 *   MPI_COMM_NULL                              MPI_ERR_COMM
 *   MPI_DATATYPE_NULL                          MPI_ERR_TYPE
 *   MPI_OP_NULL, or an op not defined for the type    MPI_ERR_OP
 *
 * For MPI_COMM_NULL no communicator's handler applies; MPI-3.1 (8.3) says
 * the error is raised on MPI_COMM_WORLD's handler, which is set to
 * MPI_ERRORS_RETURN here. After all the bad calls, a ring exchange and an
 * allreduce check that nothing was left half done.
 */
#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size;
  int buf[4] = {1, 2, 3, 4};
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st;

  /* Ranks. MPI_PROC_NULL (-2) is valid; -5 and size are not. */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD),
              MPI_ERR_RANK);
  CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req),
              MPI_ERR_RANK);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &st),
              MPI_ERR_RANK);
  CHECK_CLASS(MPI_Irecv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &req),
              MPI_ERR_RANK);
  CHECK_CLASS(MPI_Probe(size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  int flag = 0;
  CHECK_CLASS(MPI_Iprobe(-5, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK);

  /* Counts. */
  CHECK_CLASS(MPI_Send(buf, -1, MPI_INT, right, 0, MPI_COMM_WORLD),
              MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Recv(buf, -1, MPI_INT, right, 0, MPI_COMM_WORLD, &st),
              MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Allreduce(buf, buf + 2, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
              MPI_ERR_COUNT);

  /* Tags. MPI_ANY_TAG (-1) is valid only on the receiving side. */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, right, -5, MPI_COMM_WORLD),
              MPI_ERR_TAG);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, right, MPI_ANY_TAG, MPI_COMM_WORLD),
              MPI_ERR_TAG);
  CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, right, -5, MPI_COMM_WORLD, &req),
              MPI_ERR_TAG);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, right, -5, MPI_COMM_WORLD, &st),
              MPI_ERR_TAG);

  /* Roots: every rank makes the same bad call, as collectives require. */
  CHECK_CLASS(MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Bcast(buf, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_CLASS(
      MPI_Reduce(buf, buf + 2, 1, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD),
      MPI_ERR_ROOT);

  /* Communicator. */
  int n = 0;
  CHECK_CLASS(MPI_Comm_size(MPI_COMM_NULL, &n), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &n), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st),
              MPI_ERR_COMM);
  CHECK_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);

  /* Datatype. */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_DATATYPE_NULL, right, 0, MPI_COMM_WORLD),
              MPI_ERR_TYPE);
  CHECK_CLASS(
      MPI_Recv(buf, 1, MPI_DATATYPE_NULL, right, 0, MPI_COMM_WORLD, &st),
      MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD),
              MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);

  /* Operations: a null op, and ops not defined for the type. */
  CHECK_CLASS(
      MPI_Allreduce(buf, buf + 2, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD),
      MPI_ERR_OP);
  CHECK_CLASS(
      MPI_Reduce(buf, buf + 2, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD),
      MPI_ERR_OP);
  double d[2] = {1, 2};
  CHECK_CLASS(MPI_Allreduce(d, d + 1, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD),
              MPI_ERR_OP);
  CHECK_CLASS(
      MPI_Allreduce(buf, buf + 2, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD),
      MPI_ERR_OP);

  /* Nothing above may have sent or received anything. */
  int out = rank, in = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, right, 9, &in, 1, MPI_INT,
                         (rank + size - 1) % size, 9, MPI_COMM_WORLD, &st));
  CHECK(in == (rank + size - 1) % size, "ring after errors gave %d", in);
  flag = 1;
  CHECK_MPI(
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "a message from rank %d tag %d is left over after the errors",
        st.MPI_SOURCE, st.MPI_TAG);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size - 1) / 2, "allreduce after errors gave %d", sum);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
