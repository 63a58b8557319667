! f_mpi4_f08: MPI-4 through mpi_f08. Sessions (TYPE(MPI_Session)),
! without MPI_INIT: the process sets mpi://WORLD and mpi://SELF by
! MPI_SESSION_GET_NUM_PSETS and _GET_NTH_PSET (the length asked first),
! their info (mpi_size), a communicator made from mpi://WORLD's group
! (MPI_GROUP_FROM_SESSION_PSET, MPI_COMM_CREATE_FROM_GROUP) that sums the
! ranks, a Fortran session error handler called by
! MPI_SESSION_CALL_ERRHANDLER, and MPI_SESSION_FINALIZE. Large counts on
! that communicator: the generic MPI_Send, MPI_Recv, MPI_Bcast, MPI_Get_count
! and MPI_Type_size with INTEGER(KIND=MPI_COUNT_KIND) counts (their _c
! twins), and MPI_Type_get_extent_c by its own name (an MPI_Aint and an
! MPI_Count are the same kind). The large-count callbacks, named with their
! _c as no generic interface tells them from their twins: a Fortran
! reduction of MPI_OP_CREATE_C (its length of MPI_COUNT_KIND) in
! MPI_Allreduce, and a data representation of MPI_REGISTER_DATAREP_C whose
! conversions (their counts of MPI_COUNT_KIND) keep each INTEGER
! byte-reversed in a file, with MPI_CONVERSION_FN_NULL_C for a second one.
! MPI-4.1's calls: MPI_Status_get/set_*, MPI_Type_get_value_index,
! MPI_Remove_error_class, MPI_Get_hw_resource_info and a session's
! attached buffer (MPI_Session_detach_buffer's TYPE(C_PTR)).
! BDMPI only: Open MPI 4.1 has none of these, and MPICH 4.0's mpi_f08
! declares MPI_Op_create_c and MPI_Register_datarep_c with these callbacks
! but its library lacks them (and its mpi_f08 lacks MPI_SESSION_NULL).
module f_mpi4_state
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: handler_calls = 0, handler_code = -1
  type(MPI_Session) :: handler_session
  ! What the large-count callbacks saw: the last length, wrong arguments.
  integer(kind=MPI_COUNT_KIND) :: op_len = -1
  integer :: bad_calls = 0, conv_reads = 0, conv_writes = 0, conv_extents = 0
  integer(kind=MPI_ADDRESS_KIND), parameter :: kExtra = 91
contains
  ! The element-wise maximum of INTEGERs.
  subroutine imax_c(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    op_len = len
    if (datatype /= MPI_INTEGER) then
      bad_calls = bad_calls + 1
      return
    end if
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(a, b)
  end subroutine imax_c

  ! An INTEGER's four bytes in the other order.
  elemental integer function swapped(v)
    integer, intent(in) :: v
    character(len=4) :: c
    c = transfer(v, c)
    swapped = transfer(c(4:4) // c(3:3) // c(2:2) // c(1:1), v)
  end function swapped

  subroutine swapped_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    conv_extents = conv_extents + 1
    ierror = MPI_SUCCESS
    if (extra_state /= kExtra .or. datatype /= MPI_INTEGER) then
      ierror = MPI_ERR_TYPE
      return
    end if
    extent = 4
  end subroutine swapped_extent

  subroutine swapped_write_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    integer, pointer :: u(:), f(:)
    conv_writes = conv_writes + 1
    ierror = MPI_SUCCESS
    if (extra_state /= kExtra .or. datatype /= MPI_INTEGER .or. count < 1) then
      ierror = MPI_ERR_TYPE
      return
    end if
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    f = swapped(u(position + 1:position + count))
  end subroutine swapped_write_c

  subroutine swapped_read_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    integer, pointer :: u(:), f(:)
    conv_reads = conv_reads + 1
    ierror = MPI_SUCCESS
    if (extra_state /= kExtra .or. datatype /= MPI_INTEGER .or. count < 1) then
      ierror = MPI_ERR_TYPE
      return
    end if
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    u(position + 1:position + count) = swapped(f)
  end subroutine swapped_read_c

  subroutine on_session_error(session, error_code)
    type(MPI_Session) :: session
    integer :: error_code
    handler_calls = handler_calls + 1
    handler_code = error_code
    handler_session = session
  end subroutine on_session_error
end module f_mpi4_state

program f_mpi4_f08
  use mpi_f08
  use f_mpi4_state
  use, intrinsic :: iso_c_binding, only: c_ptr, c_loc, c_intptr_t
  implicit none
  type(MPI_Session) :: session
  type(MPI_Group) :: group
  type(MPI_Comm) :: comm
  type(MPI_Info) :: info
  type(MPI_Errhandler) :: errh, got
  integer :: npsets, i, plen, size, rank, total, vlen
  character(len=64) :: pset, value
  logical :: world, self, flag
  integer :: buf(5), isize, big(4096)
  integer(kind=MPI_COUNT_KIND) :: n8, got8, size8, lb8, extent8
  type(MPI_Status) :: status
  type(MPI_Op) :: op
  type(MPI_File) :: fh
  integer, parameter :: nv = 6
  integer :: values(nv), back(nv), raw(nv), peak(nv), ierr, eclass, dirlen, dirstat
  integer(kind=MPI_OFFSET_KIND) :: disp
  character(len=256) :: dir, path
  type(MPI_Datatype) :: dtype
  character(len=1), target :: sbuf(1024)
  type(c_ptr) :: detached

  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session)
  call check(session /= MPI_SESSION_NULL, 'MPI_SESSION_INIT gave MPI_SESSION_NULL')
  call MPI_Session_get_num_psets(session, MPI_INFO_NULL, npsets)
  call check(npsets >= 2, 'fewer than two process sets')
  world = .false.
  self = .false.
  do i = 0, npsets - 1
    plen = 0
    call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, plen, pset)
    call check(plen > 1 .and. plen <= len(pset), 'MPI_SESSION_GET_NTH_PSET: no length')
    call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, plen, pset)
    if (pset == 'mpi://WORLD') world = .true.
    if (pset == 'mpi://SELF') self = .true.
  end do
  call check(world .and. self, 'mpi://WORLD or mpi://SELF is missing')

  call MPI_Session_get_pset_info(session, 'mpi://WORLD', info)
  vlen = len(value)
  call MPI_Info_get_string(info, 'mpi_size', vlen, value, flag)
  call check(flag, 'mpi://WORLD has no mpi_size')
  call MPI_Info_free(info)

  call MPI_Group_from_session_pset(session, 'mpi://WORLD', group)
  call MPI_Comm_create_from_group(group, 'f_mpi4_f08', MPI_INFO_NULL, MPI_ERRORS_RETURN, &
                                  comm)
  call MPI_Group_free(group)
  call MPI_Comm_size(comm, size)
  call MPI_Comm_rank(comm, rank)
  read (value, *) i
  call check(i == size, 'mpi_size is not the size of the communicator from mpi://WORLD')
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, comm)
  call check(total == size * (size - 1) / 2, 'the sum of the ranks is wrong')

  ! Large counts through the generic names.
  n8 = 5
  buf = rank
  if (rank == 0) buf = [(10 * i, i = 1, 5)]
  call MPI_Bcast(buf, n8, MPI_INTEGER, 0, comm)
  call check(all(buf == [(10 * i, i = 1, 5)]), 'MPI_Bcast with a count of MPI_COUNT_KIND')
  if (size >= 2) then
    if (rank == 0) then
      call MPI_Send(buf, n8 - 2, MPI_INTEGER, 1, 3, comm)
    else if (rank == 1) then
      buf = 0
      call MPI_Recv(buf, n8, MPI_INTEGER, 0, 3, comm, status)
      call MPI_Get_count(status, MPI_INTEGER, got8)
      call check(got8 == 3 .and. all(buf(1:3) == [10, 20, 30]), &
                 'MPI_Send/MPI_Recv/MPI_Get_count with counts of MPI_COUNT_KIND')
    end if
  end if
  call MPI_Type_size(MPI_INTEGER, size8)
  call MPI_Type_size(MPI_INTEGER, isize)
  call check(size8 == isize .and. isize == 4, 'MPI_Type_size with a size of MPI_COUNT_KIND')
  call MPI_Type_get_extent_c(MPI_INTEGER, lb8, extent8)
  call check(lb8 == 0 .and. extent8 == 4, 'MPI_Type_get_extent_c')

  ! MPI_OP_CREATE_C: a Fortran reduction with a length of MPI_COUNT_KIND.
  call MPI_Op_create_c(imax_c, .true., op)
  peak = [(rank * mod(i * 7, 5) + i, i = 1, nv)]
  n8 = nv
  call MPI_Allreduce(MPI_IN_PLACE, peak, n8, MPI_INTEGER, op, comm)
  call check(bad_calls == 0, 'the MPI_OP_CREATE_C reduction got another datatype')
  call check(all(peak == [((size - 1) * mod(i * 7, 5) + i, i = 1, nv)]), &
             'MPI_Allreduce with an MPI_OP_CREATE_C reduction')
  ! Only the ranks that combine call the reduction: one at least, each
  ! with the whole length.
  call check(op_len == -1 .or. op_len == nv, &
             'the MPI_OP_CREATE_C reduction got another length')
  i = merge(1, 0, op_len == nv)
  call MPI_Allreduce(MPI_IN_PLACE, i, 1, MPI_INTEGER, MPI_SUM, comm)
  call check(size == 1 .or. i >= 1, 'no rank called the MPI_OP_CREATE_C reduction')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'MPI_OP_FREE after MPI_OP_CREATE_C')

  ! MPI_REGISTER_DATAREP_C: Fortran conversions with counts of MPI_COUNT_KIND.
  call MPI_Register_datarep_c('f08_swapped_c', swapped_read_c, swapped_write_c, &
                              swapped_extent, kExtra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_REGISTER_DATAREP_C failed')
  call MPI_Register_datarep_c('f08_swapped_c', swapped_read_c, swapped_write_c, &
                              swapped_extent, kExtra, ierr)
  call MPI_Error_class(ierr, eclass)
  call check(eclass == MPI_ERR_DUP_DATAREP, 'a name registered twice: not MPI_ERR_DUP_DATAREP')
  call MPI_Register_datarep_c('f08_as_is_c', MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C, &
                              swapped_extent, kExtra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_REGISTER_DATAREP_C with MPI_CONVERSION_FN_NULL_C failed')
  if (rank == 0) then
    call get_environment_variable('TMPDIR', dir, dirlen, dirstat)
    if (dirstat /= 0 .or. dirlen == 0) dir = '/tmp'
    write (path, '(a, a, i0)') trim(dir), '/f_mpi4_f08.', getpid()
  end if
  call MPI_Bcast(path, len(path), MPI_CHARACTER, 0, comm)
  call MPI_File_open(comm, trim(path), MPI_MODE_RDWR + MPI_MODE_CREATE, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_OPEN failed')
  call MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN)
  disp = int(rank, MPI_OFFSET_KIND) * nv * 4
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'f08_swapped_c', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_SET_VIEW with the MPI_REGISTER_DATAREP_C representation')
  values = [(1000 * rank + 17 * i - 40, i = 1, nv)]
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, values, nv, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS .and. conv_writes >= 1, &
             'writing through the large-count write conversion failed')
  back = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, nv, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS .and. conv_reads >= 1 .and. all(back == values), &
             'reading through the large-count read conversion failed')
  call check(conv_extents >= 1, 'the extent procedure was not asked')
  call MPI_File_sync(fh)
  call MPI_Barrier(comm)
  call MPI_File_sync(fh)
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, raw, nv, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS .and. all(raw == swapped(values)), &
             'the file does not hold the bytes reversed by the large-count conversion')
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'f08_as_is_c', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_SET_VIEW with MPI_CONVERSION_FN_NULL_C failed')
  raw = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, raw, nv, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS .and. all(raw == swapped(values)), &
             'MPI_CONVERSION_FN_NULL_C changed the data')
  call MPI_File_close(fh)
  call MPI_Barrier(comm)
  if (rank == 0) call MPI_File_delete(trim(path), MPI_INFO_NULL)

  ! A session error handler in Fortran.
  call MPI_Session_create_errhandler(on_session_error, errh)
  call MPI_Session_set_errhandler(session, errh)
  call MPI_Session_get_errhandler(session, got)
  call check(got == errh, 'MPI_SESSION_GET_ERRHANDLER gave another handler')
  call MPI_Errhandler_free(got)
  call MPI_Session_call_errhandler(session, MPI_ERR_OTHER)
  call check(handler_calls == 1 .and. handler_code == MPI_ERR_OTHER .and. &
             handler_session == session, 'the Fortran session error handler was not called')
  call MPI_Errhandler_free(errh)

  call MPI_Session_get_info(session, info)
  call MPI_Info_free(info)

  ! MPI-4.1 through mpi_f08: a status's fields, the value-index pair type,
  ! an added error class removed, the hardware info, and buffered sends
  ! through the session's buffer, detached as a TYPE(C_PTR).
  call MPI_Status_set_source(status, 3)
  call MPI_Status_set_tag(status, 44)
  call MPI_Status_set_error(status, MPI_ERR_TAG)
  call MPI_Status_get_source(status, i)
  call check(i == 3 .and. status%MPI_SOURCE == 3, 'MPI_STATUS_GET/SET_SOURCE')
  call MPI_Status_get_tag(status, i)
  call check(i == 44, 'MPI_STATUS_GET/SET_TAG')
  call MPI_Status_get_error(status, i)
  call check(i == MPI_ERR_TAG, 'MPI_STATUS_GET/SET_ERROR')
  call MPI_Type_get_value_index(MPI_INTEGER, MPI_INTEGER, dtype)
  call check(dtype == MPI_2INTEGER, 'MPI_TYPE_GET_VALUE_INDEX(MPI_INTEGER, MPI_INTEGER)')
  call MPI_Add_error_class(eclass)
  call MPI_Remove_error_class(eclass, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_REMOVE_ERROR_CLASS')
  call MPI_Get_hw_resource_info(info)
  call MPI_Info_get(info, 'hwloc://Machine', len(value), value, flag)
  call check(flag .and. value == 'true', 'MPI_GET_HW_RESOURCE_INFO: hwloc://Machine is not true')
  call MPI_Info_free(info)
  call MPI_Session_attach_buffer(session, sbuf, int(sizeof(sbuf)), ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_SESSION_ATTACH_BUFFER failed')
  call MPI_Bsend(rank, 1, MPI_INTEGER, rank, 7, comm)
  call MPI_Recv(i, 1, MPI_INTEGER, rank, 7, comm, status)
  call check(i == rank, 'MPI_BSEND through the session''s buffer')
  call MPI_Session_flush_buffer(session)
  call MPI_Session_detach_buffer(session, detached, isize, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_SESSION_DETACH_BUFFER failed')
  call check(transfer(detached, 0_c_intptr_t) == transfer(c_loc(sbuf), 0_c_intptr_t) .and. &
             isize == int(sizeof(sbuf)), &
             'MPI_SESSION_DETACH_BUFFER gave another buffer')
  ! MPI_BUFFER_AUTOMATIC: a buffer without a limit, attached to the
  ! communicator, and given back by the detach as its own address.
  call MPI_Comm_attach_buffer(comm, MPI_BUFFER_AUTOMATIC, 0, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_COMM_ATTACH_BUFFER(MPI_BUFFER_AUTOMATIC) failed')
  big = rank
  call MPI_Bsend(big, 4096, MPI_INTEGER, rank, 8, comm)
  big = -1
  call MPI_Recv(big, 4096, MPI_INTEGER, rank, 8, comm, status)
  call check(all(big == rank), 'MPI_BSEND through MPI_BUFFER_AUTOMATIC')
  call MPI_Comm_detach_buffer(comm, detached, isize, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_COMM_DETACH_BUFFER of MPI_BUFFER_AUTOMATIC failed')
  call check(transfer(detached, 0_c_intptr_t) == loc(MPI_BUFFER_AUTOMATIC), &
             'MPI_COMM_DETACH_BUFFER did not give MPI_BUFFER_AUTOMATIC back')
  call MPI_Barrier(comm)
  if (rank == 0) print '(a)', 'f_mpi4_f08: sessions, large counts and large-count callbacks through mpi_f08 ok'
  call MPI_Comm_free(comm)
  call MPI_Session_finalize(session)
  call check(session == MPI_SESSION_NULL, 'MPI_SESSION_FINALIZE did not reset the handle')

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write (0, '(2a)') 'f_mpi4_f08: FAILED: ', what
      error stop 1
    end if
  end subroutine check
end program f_mpi4_f08
