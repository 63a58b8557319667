! f_api: BDMPI's Fortran bindings through mpif.h (the default) or, compiled
! with -DUSE_MPI_MODULE, through `use mpi` (explicit interfaces). The same
! source runs under Open MPI's mpirun as the oracle. Self-checking: the
! first failed check prints what and aborts the job.
!
! Point-to-point (statuses, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, 1-based
! Waitany index), collectives (MPI_IN_PLACE, LOGICAL and CHARACTER data),
! derived types (vector, struct with MPI_BOTTOM and absolute addresses,
! f90 types), communicators (split, dup, names, Cartesian topology,
! attributes), MPI-IO (write_at, read_at of another rank's part), error
! strings.
program f_api
#ifdef USE_MPI_MODULE
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer, parameter :: n = 100
  integer :: ierr, rank, nprocs, next, prev, i, idx, count, sz, res
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), req(2)
  double precision :: sbuf(n), rbuf(n), dmax, t0
  integer :: ival, isum, ivals(64)
  logical :: lval, flag, periods(1)
  character(len=16) :: word
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: errstr
  integer :: newcomm, dupcomm, cart, dims(1), src, dst
  real :: grid(4, 3), col(4)
  integer :: vec, stype, f90type, blocklens(2), types(2)
  integer(kind=MPI_ADDRESS_KIND) :: displs(2), attr
  integer :: sint, rint, version, subversion
  double precision :: sdbl, rdbl
  integer :: fh, pid, op
  external :: f_api_max_abs
  integer(kind=MPI_OFFSET_KIND) :: offset, fsize
  character(len=64) :: fname

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')
  call MPI_Get_version(version, subversion, ierr)
  call check(version == MPI_VERSION .and. subversion == MPI_SUBVERSION .and. version >= 3, &
             'MPI_Get_version differs from MPI_VERSION, MPI_SUBVERSION')
  t0 = MPI_Wtime()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)

  ! --- point-to-point
  sbuf = [(rank * 1000 + i, i = 1, n)]
  call MPI_Sendrecv(sbuf, n, MPI_DOUBLE_PRECISION, next, 7, rbuf, n, &
                    MPI_DOUBLE_PRECISION, prev, 7, MPI_COMM_WORLD, status, ierr)
  call check(status(MPI_SOURCE) == prev .and. status(MPI_TAG) == 7, &
             'Sendrecv status source/tag')
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count, ierr)
  call check(count == n, 'Get_count')
  call check(all(rbuf == [(prev * 1000 + i, i = 1, n)]), 'Sendrecv data')

  call MPI_Irecv(rbuf, n, MPI_DOUBLE_PRECISION, prev, 8, MPI_COMM_WORLD, &
                 req(1), ierr)
  call MPI_Isend(sbuf, n, MPI_DOUBLE_PRECISION, next, 8, MPI_COMM_WORLD, &
                 req(2), ierr)
  call MPI_Waitall(2, req, statuses, ierr)
  call check(statuses(MPI_SOURCE, 1) == prev, 'Waitall statuses')
  call check(req(1) == MPI_REQUEST_NULL, 'Waitall frees requests')

  call MPI_Irecv(ival, 1, MPI_INTEGER, prev, 9, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, next, 9, MPI_COMM_WORLD, ierr)
  call MPI_Waitany(1, req, idx, MPI_STATUS_IGNORE, ierr)
  call check(idx == 1, 'Waitany index is 1-based')
  call check(ival == prev, 'Irecv of one INTEGER')

  call MPI_Irecv(ival, 1, MPI_INTEGER, prev, 10, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(rank, 1, MPI_INTEGER, next, 10, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call check(ival == prev, 'Waitall with MPI_STATUSES_IGNORE')

  ! --- collectives
  call MPI_Allreduce(rank, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(isum == nprocs * (nprocs - 1) / 2, 'Allreduce INTEGER')
  ival = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_PROD, &
                     MPI_COMM_WORLD, ierr)
  res = 1
  do i = 1, nprocs
    res = res * i
  end do
  call check(ival == res, 'Allreduce MPI_IN_PLACE')
  call MPI_Op_create(f_api_max_abs, .true., op, ierr)
  ival = -rank
  call MPI_Allreduce(ival, isum, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(isum == nprocs - 1, 'Allreduce with a Fortran MPI_Op_create op')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'Op_free')
  lval = rank >= 0
  call MPI_Allreduce(MPI_IN_PLACE, lval, 1, MPI_LOGICAL, MPI_LAND, &
                     MPI_COMM_WORLD, ierr)
  call check(lval, 'Allreduce LOGICAL')
  word = ''
  if (rank == 0) word = 'from rank 0'
  call MPI_Bcast(word, len(word), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
  call check(word == 'from rank 0', 'Bcast CHARACTER')
  sbuf(1) = dble(rank) * 1.5d0
  call MPI_Reduce(sbuf, dmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, &
                  MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(dmax == dble(nprocs - 1) * 1.5d0, 'Reduce MAX')
  call MPI_Gather(rank, 1, MPI_INTEGER, ivals, 1, MPI_INTEGER, 0, &
                  MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(all(ivals(1:nprocs) == [(i, i = 0, nprocs - 1)]), &
                            'Gather')
  ivals(1:nprocs) = [(rank * 100 + i, i = 0, nprocs - 1)]
  call MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INTEGER, ivals, 1, MPI_INTEGER, &
                    MPI_COMM_WORLD, ierr)
  call check(all(ivals(1:nprocs) == [(i * 100 + rank, i = 0, nprocs - 1)]), &
             'Alltoall MPI_IN_PLACE')

  ! --- derived datatypes
  grid = reshape([(real(rank * 100 + i), i = 1, 12)], [4, 3])
  call MPI_Type_vector(3, 1, 4, MPI_REAL, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  ! The second row of grid (stride 4 in column-major order) into col(1:3).
  call MPI_Sendrecv(grid(2, 1), 1, vec, next, 11, col, 3, MPI_REAL, prev, &
                    11, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(all(col(1:3) == [real(prev * 100 + 2), real(prev * 100 + 6), &
                              real(prev * 100 + 10)]), 'Type_vector row')
  call MPI_Type_free(vec, ierr)
  call check(vec == MPI_DATATYPE_NULL, 'Type_free sets MPI_DATATYPE_NULL')

  sint = rank + 40
  sdbl = rank + 0.25d0
  call MPI_Get_address(sint, displs(1), ierr)
  call MPI_Get_address(sdbl, displs(2), ierr)
  blocklens = 1
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Type_create_struct(2, blocklens, displs, types, stype, ierr)
  call MPI_Type_commit(stype, ierr)
  call MPI_Send(MPI_BOTTOM, 1, stype, next, 12, MPI_COMM_WORLD, ierr)
  call MPI_Type_free(stype, ierr)
  call MPI_Get_address(rint, displs(1), ierr)
  call MPI_Get_address(rdbl, displs(2), ierr)
  call MPI_Type_create_struct(2, blocklens, displs, types, stype, ierr)
  call MPI_Type_commit(stype, ierr)
  call MPI_Recv(MPI_BOTTOM, 1, stype, prev, 12, MPI_COMM_WORLD, status, ierr)
  call check(rint == prev + 40 .and. rdbl == prev + 0.25d0, &
             'struct of absolute addresses through MPI_BOTTOM')
  call MPI_Type_free(stype, ierr)

  call MPI_Type_size(MPI_INTEGER, sz, ierr)
  call check(sz == storage_size(ival) / 8, 'MPI_INTEGER size')
  call MPI_Type_size(MPI_DOUBLE_PRECISION, sz, ierr)
  call check(sz == 8, 'MPI_DOUBLE_PRECISION size')
  call MPI_Type_size(MPI_COMPLEX, sz, ierr)
  call check(sz == 8, 'MPI_COMPLEX size')
  call MPI_Type_size(MPI_LOGICAL, sz, ierr)
  call check(sz == storage_size(lval) / 8, 'MPI_LOGICAL size')
  call MPI_Type_create_f90_real(15, 300, f90type, ierr)
  call MPI_Type_size(f90type, sz, ierr)
  call check(sz == 8, 'Type_create_f90_real(15, 300)')
  call MPI_Type_create_f90_integer(9, f90type, ierr)
  call MPI_Type_size(f90type, sz, ierr)
  call check(sz == 4, 'Type_create_f90_integer(9)')

  ! --- communicators
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, newcomm, ierr)
  call MPI_Comm_size(newcomm, sz, ierr)
  call check(sz == (nprocs + 1 - mod(rank, 2)) / 2, 'Comm_split size')
  call MPI_Comm_dup(newcomm, dupcomm, ierr)
  call MPI_Comm_compare(newcomm, dupcomm, res, ierr)
  call check(res == MPI_CONGRUENT, 'Comm_compare of a dup')
  call MPI_Comm_set_name(dupcomm, 'fortran dup   ', ierr)
  name = 'x'
  call MPI_Comm_get_name(dupcomm, name, sz, ierr)
  call check(name == 'fortran dup' .and. sz == 11, 'Comm_set/get_name')
  call MPI_Comm_free(dupcomm, ierr)
  call check(dupcomm == MPI_COMM_NULL, 'Comm_free sets MPI_COMM_NULL')
  call MPI_Comm_free(newcomm, ierr)
  dims(1) = nprocs
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  call check(src == prev .and. dst == next, 'Cart_shift on a periodic ring')
  call MPI_Comm_free(cart, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, attr, flag, ierr)
  call check(flag .and. attr >= 32767, 'Comm_get_attr MPI_TAG_UB')

  ! --- MPI-IO: each rank writes its part, reads its neighbour's.
  pid = 0
  if (rank == 0) pid = getpid()
  call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  write (fname, '(a, i0, a)') 'f_api_', pid, '.dat'
  call MPI_File_open(MPI_COMM_WORLD, fname, &
                     MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'File_open')
  sbuf = [(rank * 1000 + i, i = 1, n)]
  offset = int(rank, MPI_OFFSET_KIND) * n * 8
  call MPI_File_write_at(fh, offset, sbuf, n, MPI_DOUBLE_PRECISION, status, ierr)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count, ierr)
  call check(ierr == MPI_SUCCESS .and. count == n, 'File_write_at')
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_File_get_size(fh, fsize, ierr)
  call check(fsize == int(nprocs, MPI_OFFSET_KIND) * n * 8, 'File_get_size')
  offset = int(next, MPI_OFFSET_KIND) * n * 8
  call MPI_File_read_at(fh, offset, rbuf, n, MPI_DOUBLE_PRECISION, &
                        MPI_STATUS_IGNORE, ierr)
  call check(all(rbuf == [(next * 1000 + i, i = 1, n)]), 'File_read_at')
  call MPI_File_close(fh, ierr)
  call check(fh == MPI_FILE_NULL, 'File_close')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL, ierr)

  ! --- errors
  call MPI_Error_string(MPI_ERR_COUNT, errstr, sz, ierr)
  call check(sz > 0 .and. sz < len(errstr) .and. len_trim(errstr) == sz, &
             'Error_string blank-padded')
#ifdef USE_MPI_MODULE
  call MPI_Sizeof(dmax, sz, ierr)
  call check(sz == 8, 'MPI_SIZEOF(double precision)')
  call MPI_Sizeof(ivals, sz, ierr)
  call check(sz == 4, 'MPI_SIZEOF(integer array)')
#endif
  call check(MPI_Wtime() >= t0, 'MPI_Wtime')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'f_api: ', nprocs, ' ranks ok'
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      write (0, '(a, i0, 2a)') 'f_api: rank ', rank, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check

end program f_api

! A user-defined reduction in the Fortran 77 form: the largest magnitude.
subroutine f_api_max_abs(invec, inoutvec, len, datatype)
#ifdef USE_MPI_MODULE
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer, intent(in) :: len, datatype
  integer, intent(in) :: invec(len)
  integer, intent(inout) :: inoutvec(len)
  integer :: i
  if (datatype /= MPI_INTEGER) return
  do i = 1, len
    inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
  end do
end subroutine f_api_max_abs
