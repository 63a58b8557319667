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
! MPI_Count are the same kind). BDMPI only: Open MPI 4.1 has neither.
module f_mpi4_state
  use mpi_f08
  implicit none
  integer :: handler_calls = 0, handler_code = -1
  type(MPI_Session) :: handler_session
contains
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
  implicit none
  type(MPI_Session) :: session
  type(MPI_Group) :: group
  type(MPI_Comm) :: comm
  type(MPI_Info) :: info
  type(MPI_Errhandler) :: errh, got
  integer :: npsets, i, plen, size, rank, total, vlen
  character(len=64) :: pset, value
  logical :: world, self, flag
  integer :: buf(5), isize
  integer(kind=MPI_COUNT_KIND) :: n8, got8, size8, lb8, extent8
  type(MPI_Status) :: status

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
  call MPI_Barrier(comm)
  if (rank == 0) print '(a)', 'f_mpi4_f08: sessions and large counts through mpi_f08 ok'
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
