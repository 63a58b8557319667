/*
 * status_convert: statuses between C and Fortran.
 *
 * Each rank receives a message from its left neighbour and converts the
 * status to Fortran's form and back (MPI_Status_c2f, MPI_Status_f2c): the
 * source, tag and error sit at MPI_SOURCE, MPI_TAG and MPI_ERROR of the
 * integer array (1-based in Fortran, so 0..2 here where the MPI-4
 * constants MPI_F_SOURCE ... are absent), and the status that comes back
 * gives the same MPI_Get_count and MPI_Test_cancelled. MPI_F_STATUS_IGNORE
 * and MPI_F_STATUSES_IGNORE exist and differ from any status variable.
 * Where mpi.h has MPI-4's mpi_f08 conversions (MPI_F_STATUS_SIZE), the
 * same through MPI_F08_status (c2f08, f082c, f2f08, f082f), and converting
 * from MPI_F_STATUS_IGNORE fails with MPI_ERR_ARG.
 */
#include "check.h"

#ifdef MPI_F_STATUS_SIZE
enum { kFortranStatusSize = MPI_F_STATUS_SIZE, kSource = MPI_F_SOURCE, kTag = MPI_F_TAG,
       kError = MPI_F_ERROR };
#else
enum { kFortranStatusSize = 64, kSource = 0, kTag = 1, kError = 2 };
#endif

static void check_same(const MPI_Status *a, const MPI_Status *b, const char *what) {
  int count_a = -1, count_b = -2, cancelled_a = -1, cancelled_b = -2;
  CHECK_MPI(MPI_Get_count(a, MPI_INT, &count_a));
  CHECK_MPI(MPI_Get_count(b, MPI_INT, &count_b));
  CHECK_MPI(MPI_Test_cancelled(a, &cancelled_a));
  CHECK_MPI(MPI_Test_cancelled(b, &cancelled_b));
  CHECK(a->MPI_SOURCE == b->MPI_SOURCE && a->MPI_TAG == b->MPI_TAG &&
            a->MPI_ERROR == b->MPI_ERROR && count_a == count_b &&
            cancelled_a == cancelled_b,
        "%s: source %d/%d tag %d/%d error %d/%d count %d/%d cancelled %d/%d", what,
        a->MPI_SOURCE, b->MPI_SOURCE, a->MPI_TAG, b->MPI_TAG, a->MPI_ERROR, b->MPI_ERROR,
        count_a, count_b, cancelled_a, cancelled_b);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rank = world_rank(), size = world_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int data[7] = {0}, got[7];
  int count = 3 + rank % 5;
  MPI_Request request;
  CHECK_MPI(MPI_Irecv(got, 7, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &request));
  CHECK_MPI(MPI_Send(data, 3 + right % 5, MPI_INT, right, 40 + right, MPI_COMM_WORLD));
  MPI_Status status;
  CHECK_MPI(MPI_Wait(&request, &status));
  CHECK_STATUS(status, left, 40 + rank, MPI_INT, count);
  /* MPI_Wait leaves MPI_ERROR alone: give it a known value. */
  status.MPI_ERROR = MPI_SUCCESS;

  MPI_Fint f_status[kFortranStatusSize];
  MPI_Status back;
  CHECK_MPI(MPI_Status_c2f(&status, f_status));
  CHECK(f_status[kSource] == left && f_status[kTag] == 40 + rank &&
            f_status[kError] == MPI_SUCCESS,
        "Fortran status: source %d tag %d error %d", (int)f_status[kSource],
        (int)f_status[kTag], (int)f_status[kError]);
  CHECK_MPI(MPI_Status_f2c(f_status, &back));
  check_same(&status, &back, "c2f then f2c");

  CHECK(MPI_F_STATUS_IGNORE != NULL && MPI_F_STATUSES_IGNORE != NULL &&
            MPI_F_STATUS_IGNORE != f_status && MPI_F_STATUSES_IGNORE != f_status,
        "MPI_F_STATUS(ES)_IGNORE");

#ifdef MPI_F_STATUS_SIZE
  MPI_F08_status f08, f08_again;
  MPI_Status back08;
  CHECK_MPI(MPI_Status_c2f08(&status, &f08));
  CHECK(f08.MPI_SOURCE == left && f08.MPI_TAG == 40 + rank && f08.MPI_ERROR == MPI_SUCCESS,
        "mpi_f08 status: source %d tag %d", (int)f08.MPI_SOURCE, (int)f08.MPI_TAG);
  CHECK_MPI(MPI_Status_f082c(&f08, &back08));
  check_same(&status, &back08, "c2f08 then f082c");
  MPI_Fint f_again[MPI_F_STATUS_SIZE];
  CHECK_MPI(MPI_Status_f082f(&f08, f_again));
  CHECK(memcmp(f_again, f_status, sizeof f_again) == 0, "f082f differs from c2f");
  CHECK_MPI(MPI_Status_f2f08(f_again, &f08_again));
  CHECK_MPI(MPI_Status_f082c(&f08_again, &back08));
  check_same(&status, &back08, "f2f08 then f082c");
  CHECK_CLASS(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &back), MPI_ERR_ARG);
#endif

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("status_convert: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
