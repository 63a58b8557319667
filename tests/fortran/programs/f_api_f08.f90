! f_api_f08: BDMPI's Fortran bindings through `use mpi_f08`: handle types,
! optional ierror, TYPE(*), DIMENSION(..) buffers (array sections copied by
! the compiler for blocking calls), MPI_Status components. The same source
! runs under Open MPI's mpirun as the oracle. Self-checking: the first
! failed check prints what and aborts the job.
program f_api_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 100
  integer :: ierr, rank, nprocs, next, prev, i, idx, count, sz
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Request) :: req(2)
  double precision :: sbuf(n), rbuf(n), dmax
  integer :: ival, isum, ivals(64), strided(2 * n), got(n)
  logical :: lval, flag
  character(len=16) :: word
  character(len=MPI_MAX_OBJECT_NAME) :: name
  type(MPI_Comm) :: newcomm, dupcomm, cart
  integer :: dims(2), src, dst
  logical :: periods(2)
  type(MPI_Datatype) :: vec, f90type
  integer(kind=MPI_ADDRESS_KIND) :: attr
  type(MPI_File) :: fh
  type(MPI_Op) :: op
  integer :: pid
  integer(kind=MPI_OFFSET_KIND) :: offset, fsize
  character(len=64) :: fname
  complex(kind=8) :: zs(3), zr(3)
  integer :: key, key2, version, subversion
  integer(kind=MPI_ADDRESS_KIND) :: extra
  type(MPI_Request) :: greq

  call MPI_Init()
  call MPI_Get_version(version, subversion)
  call check(version == MPI_VERSION .and. subversion == MPI_SUBVERSION .and. version >= 3, &
             'MPI_Get_version differs from MPI_VERSION, MPI_SUBVERSION')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call check(ierr == MPI_SUCCESS, 'Comm_size ierror')
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)

  ! --- point-to-point
  sbuf = [(rank * 1000 + i, i = 1, n)]
  call MPI_Sendrecv(sbuf, n, MPI_DOUBLE_PRECISION, next, 7, rbuf, n, &
                    MPI_DOUBLE_PRECISION, prev, 7, MPI_COMM_WORLD, status)
  call check(status%MPI_SOURCE == prev .and. status%MPI_TAG == 7, &
             'Sendrecv status')
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count)
  call check(count == n, 'Get_count')
  call check(all(rbuf == [(prev * 1000 + i, i = 1, n)]), 'Sendrecv data')

  ! A non-contiguous section in a blocking send: every other element.
  strided = [(rank * 10000 + i, i = 1, 2 * n)]
  call MPI_Sendrecv(strided(1:2 * n:2), n, MPI_INTEGER, next, 8, got, n, &
                    MPI_INTEGER, prev, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(all(got == [(prev * 10000 + 2 * i - 1, i = 1, n)]), &
             'strided section in Sendrecv')

  call MPI_Irecv(rbuf, n, MPI_DOUBLE_PRECISION, prev, 9, MPI_COMM_WORLD, req(1))
  call MPI_Isend(sbuf, n, MPI_DOUBLE_PRECISION, next, 9, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, statuses)
  call check(statuses(1)%MPI_SOURCE == prev, 'Waitall statuses')
  call check(req(1) == MPI_REQUEST_NULL, 'Waitall frees requests')

  call MPI_Irecv(ival, 1, MPI_INTEGER, prev, 10, MPI_COMM_WORLD, req(1))
  call MPI_Send(rank, 1, MPI_INTEGER, next, 10, MPI_COMM_WORLD)
  call MPI_Waitany(1, req, idx, MPI_STATUS_IGNORE)
  call check(idx == 1 .and. ival == prev, 'Waitany')
  call MPI_Irecv(ival, 1, MPI_INTEGER, prev, 11, MPI_COMM_WORLD, req(1))
  call MPI_Isend(rank, 1, MPI_INTEGER, next, 11, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  call check(ival == prev, 'Waitall with MPI_STATUSES_IGNORE')

  ! --- collectives
  call MPI_Allreduce(rank, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(isum == nprocs * (nprocs - 1) / 2, 'Allreduce')
  ival = rank
  call MPI_Allreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_MAX, &
                     MPI_COMM_WORLD)
  call check(ival == nprocs - 1, 'Allreduce MPI_IN_PLACE')
  lval = rank == 0
  call MPI_Allreduce(MPI_IN_PLACE, lval, 1, MPI_LOGICAL, MPI_LOR, &
                     MPI_COMM_WORLD)
  call check(lval, 'Allreduce LOGICAL')
  word = ''
  if (rank == 0) word = 'f08 bcast'
  call MPI_Bcast(word, len(word), MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call check(word == 'f08 bcast', 'Bcast CHARACTER')
  zs = [(cmplx(rank, i, kind=8), i = 1, 3)]
  call MPI_Allreduce(zs, zr, 3, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD)
  call check(all(zr == [(cmplx(nprocs * (nprocs - 1) / 2, nprocs * i, &
                               kind=8), i = 1, 3)]), 'Allreduce DOUBLE COMPLEX')
  call MPI_Op_create(f08_max_abs, .true., op)
  ival = -rank
  call MPI_Allreduce(ival, isum, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(isum == nprocs - 1, 'Allreduce with a Fortran MPI_Op_create op')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'Op_free')
  sbuf(1) = rank * 2.5d0
  call MPI_Reduce(sbuf(1), dmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, &
                  MPI_COMM_WORLD)
  if (rank == 0) call check(dmax == (nprocs - 1) * 2.5d0, 'Reduce MAX')
  call MPI_Allgather(rank, 1, MPI_INTEGER, ivals, 1, MPI_INTEGER, &
                     MPI_COMM_WORLD)
  call check(all(ivals(1:nprocs) == [(i, i = 0, nprocs - 1)]), 'Allgather')
  call MPI_Barrier(MPI_COMM_WORLD)

  ! --- derived datatypes: every other INTEGER, received contiguous.
  call MPI_Type_vector(n, 1, 2, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  call MPI_Sendrecv(strided, 1, vec, next, 12, got, n, MPI_INTEGER, prev, &
                    12, MPI_COMM_WORLD, status)
  call check(all(got == [(prev * 10000 + 2 * i - 1, i = 1, n)]), &
             'Type_vector')
  call MPI_Type_free(vec)
  call check(vec == MPI_DATATYPE_NULL, 'Type_free')
  call MPI_Type_create_f90_real(6, 30, f90type)
  call MPI_Type_size(f90type, sz)
  call check(sz == 4, 'Type_create_f90_real(6, 30)')
  call MPI_Sizeof(zs, sz)
  call check(sz == 16, 'MPI_SIZEOF(complex(8))')

  ! --- communicators
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, newcomm)
  call MPI_Comm_rank(newcomm, ival)
  call MPI_Comm_size(newcomm, sz)
  call check(ival == sz - 1 - rank / 2, 'Comm_split key order')
  call MPI_Comm_dup(newcomm, dupcomm)
  call MPI_Comm_set_name(dupcomm, 'f08 dup')
  call MPI_Comm_get_name(dupcomm, name, sz)
  call check(name == 'f08 dup' .and. sz == 7, 'Comm_set/get_name')
  call MPI_Comm_free(dupcomm)
  call check(dupcomm == MPI_COMM_NULL, 'Comm_free')
  call MPI_Comm_free(newcomm)
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims)
  call check(dims(1) * dims(2) == nprocs, 'Dims_create')
  periods = [.true., .false.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart)
  call MPI_Cart_shift(cart, 1, 1, src, dst)
  call MPI_Cart_get(cart, 2, dims, periods, ivals)
  call check(periods(1) .and. .not. periods(2), 'Cart_get periods')
  call MPI_Comm_free(cart)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, attr, flag)
  call check(flag .and. attr >= 32767, 'Comm_get_attr MPI_TAG_UB')

  ! --- MPI-IO with a file view: each rank writes its part, reads all.
  pid = 0
  if (rank == 0) pid = getpid()
  call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  write (fname, '(a, i0, a)') 'f_api_f08_', pid, '.dat'
  call MPI_File_open(MPI_COMM_WORLD, fname, &
                     ior(MPI_MODE_CREATE, MPI_MODE_RDWR), MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'File_open')
  offset = int(rank, MPI_OFFSET_KIND) * n * 4
  call MPI_File_set_view(fh, offset, MPI_INTEGER, MPI_INTEGER, 'native', &
                         MPI_INFO_NULL)
  got = [(rank * 10 + i, i = 1, n)]
  call MPI_File_write_all(fh, got, n, MPI_INTEGER, status)
  call MPI_Get_count(status, MPI_INTEGER, count)
  call check(count == n, 'File_write_all count')
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh)
  call MPI_File_get_size(fh, fsize)
  call check(fsize == int(nprocs, MPI_OFFSET_KIND) * n * 4, 'File_get_size')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, &
                         'native', MPI_INFO_NULL)
  offset = int(next, MPI_OFFSET_KIND) * n
  call MPI_File_read_at(fh, offset, got, n, MPI_INTEGER, MPI_STATUS_IGNORE)
  call check(all(got == [(next * 10 + i, i = 1, n)]), 'File_read_at')
  call MPI_File_close(fh)
  call check(fh == MPI_FILE_NULL, 'File_close')
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL)

  ! Attribute callbacks in the mpi_f08 form (TYPE(MPI_Comm) handles) and
  ! the predefined MPI_COMM_DUP_FN; a generalized request.
  extra = 9
  call MPI_Comm_create_keyval(f08_copy, f08_delete, key, extra)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key2, extra)
  attr = 300 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, attr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key2, attr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dupcomm)
  call MPI_Comm_get_attr(dupcomm, key, attr, flag)
  call check(flag .and. attr == 300 + rank + 9, 'the mpi_f08 copy callback''s value')
  call MPI_Comm_get_attr(dupcomm, key2, attr, flag)
  call check(flag .and. attr == 300 + rank, 'MPI_COMM_DUP_FN from mpi_f08')
  call MPI_Comm_free(dupcomm)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key2)
  call MPI_Comm_free_keyval(key)
  call MPI_Comm_free_keyval(key2)
  extra = 12
  call MPI_Grequest_start(f08_query, f08_free, f08_cancel, extra, greq)
  call MPI_Grequest_complete(greq)
  call MPI_Wait(greq, status)
  call check(status%MPI_TAG == 12 .and. greq == MPI_REQUEST_NULL, &
             'a generalized request''s status from the mpi_f08 query procedure')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'f_api_f08: ', nprocs, ' ranks ok'
  call MPI_Finalize()

contains

  ! A user-defined reduction in the mpi_f08 form: the largest magnitude.
  subroutine f08_max_abs(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(abs(a), abs(b))
  end subroutine f08_max_abs

  ! Callbacks with the mpi_f08 interfaces; no host variables, so no
  ! trampolines on the stack.
  subroutine f08_copy(oldcomm, comm_keyval, extra_state, attribute_val_in, &
                      attribute_val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    attribute_val_out = attribute_val_in + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine f08_copy

  subroutine f08_delete(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    ierror = MPI_SUCCESS
  end subroutine f08_delete

  subroutine f08_query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    call MPI_Status_set_elements(status, MPI_INTEGER, 0)
    call MPI_Status_set_cancelled(status, .false.)
    status%MPI_SOURCE = MPI_UNDEFINED
    status%MPI_TAG = int(extra_state)
    ierror = MPI_SUCCESS
  end subroutine f08_query

  subroutine f08_free(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    ierror = MPI_SUCCESS
  end subroutine f08_free

  subroutine f08_cancel(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
  end subroutine f08_cancel

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write (0, '(a, i0, 2a)') 'f_api_f08: rank ', rank, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check

end program f_api_f08
