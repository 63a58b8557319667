! f_spawn: MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE from Fortran, whose
! ARGV is a CHARACTER array ended by a blank element and whose
! ARRAY_OF_ARGV(COUNT, *) holds argument j of command i in (i, j); with
! MPI_ARGV_NULL, MPI_ARGVS_NULL and MPI_ERRCODES_IGNORE. The program
! spawns itself (its command name) and each child checks the arguments it
! got (GET_COMMAND_ARGUMENT), its MPI_APPNUM and its parent, then answers
! the parents' rank 0 with its world rank. Built with mpif.h, or module mpi
! with USE_MPI_MODULE. The first failed check prints what and aborts.
program f_spawn
#ifdef USE_MPI_MODULE
  use mpi
#endif
  implicit none
#ifndef USE_MPI_MODULE
  include 'mpif.h'
#endif
  integer :: ierr, rank, parent
  character(len=512) :: self

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(0, self)
  call MPI_Comm_get_parent(parent, ierr)
  if (parent == MPI_COMM_NULL) then
    call parents()
  else
    call child(parent)
  end if
  call MPI_Finalize(ierr)

contains

  subroutine parents()
    character(len=16) :: args(3), argvs(2, 3)
    character(len=512) :: commands(2)
    integer :: errcodes(3), maxprocs(2), infos(2), inter, i

    ! Two children with two arguments, one of them with a blank inside.
    args(1) = 'plain'
    args(2) = 'a b'
    args(3) = ' '
    errcodes = -1
    call MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errcodes, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_COMM_SPAWN failed')
    call check(all(errcodes(1:2) == MPI_SUCCESS), 'MPI_COMM_SPAWN: error codes not MPI_SUCCESS')
    call talk(inter, 2)

    ! No arguments, no error codes.
    call MPI_Comm_spawn(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                        MPI_ERRCODES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_COMM_SPAWN with MPI_ARGV_NULL failed')
    call talk(inter, 1)

    ! Two commands of one child each: command i gets 'multi' and its number.
    commands = self
    maxprocs = 1
    infos = MPI_INFO_NULL
    do i = 1, 2
      argvs(i, 1) = 'multi'
      write (argvs(i, 2), '(i0)') i
      argvs(i, 3) = ' '
    end do
    errcodes = -1
    call MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &
                                 inter, errcodes, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_COMM_SPAWN_MULTIPLE failed')
    call check(all(errcodes(1:2) == MPI_SUCCESS), &
               'MPI_COMM_SPAWN_MULTIPLE: error codes not MPI_SUCCESS')
    call talk(inter, 2)

    call MPI_Comm_spawn_multiple(2, commands, MPI_ARGVS_NULL, maxprocs, infos, 0, &
                                 MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_COMM_SPAWN_MULTIPLE with MPI_ARGVS_NULL failed')
    call talk(inter, 2)
    if (rank == 0) print '(a)', 'f_spawn: spawn and spawn_multiple from Fortran ok'
  end subroutine parents

  ! The parents' rank 0 hears from every child, then all disconnect.
  subroutine talk(inter, nchildren)
    integer, intent(inout) :: inter
    integer, intent(in) :: nchildren
    integer :: remote, i, value, seen, status(MPI_STATUS_SIZE)
    call MPI_Comm_remote_size(inter, remote, ierr)
    call check(remote == nchildren, 'the intercommunicator has the wrong number of children')
    if (rank == 0) then
      seen = 0
      do i = 1, nchildren
        call MPI_Recv(value, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, inter, status, ierr)
        call check(value == 100 + status(MPI_SOURCE), 'a child sent the wrong value')
        seen = seen + 1
      end do
      call check(seen == nchildren, 'not every child answered')
    end if
    call MPI_Comm_disconnect(inter, ierr)
  end subroutine talk

  subroutine child(parent)
    integer, intent(inout) :: parent
    character(len=64) :: arg1, arg2
    integer :: nargs, value, appnum_flag_int
    integer(kind=MPI_ADDRESS_KIND) :: appnum
    logical :: flag

    nargs = command_argument_count()
    arg1 = ' '
    arg2 = ' '
    if (nargs >= 1) call get_command_argument(1, arg1)
    if (nargs >= 2) call get_command_argument(2, arg2)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, appnum, flag, ierr)
    call check(flag, 'a child has no MPI_APPNUM')
    appnum_flag_int = int(appnum)
    if (nargs == 0) then
      continue
    else if (arg1 == 'plain') then
      call check(nargs == 2 .and. arg2 == 'a b', 'MPI_COMM_SPAWN''s arguments did not arrive')
      call check(appnum_flag_int == 0, 'MPI_COMM_SPAWN''s child: MPI_APPNUM not 0')
    else if (arg1 == 'multi') then
      call check(nargs == 2, 'MPI_COMM_SPAWN_MULTIPLE''s child got more than two arguments')
      call check((arg2 == '1' .and. appnum_flag_int == 0) .or. &
                 (arg2 == '2' .and. appnum_flag_int == 1), &
                 'MPI_COMM_SPAWN_MULTIPLE''s child: its argument is not its command''s')
    else
      call check(.false., 'a child got unexpected arguments')
    end if
    value = 100 + rank
    call MPI_Send(value, 1, MPI_INTEGER, 0, 5, parent, ierr)
    call MPI_Comm_disconnect(parent, ierr)
  end subroutine child

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      write (0, '(a, i0, 2a)') 'f_spawn: rank ', rank, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end program f_spawn
