! f_pmpi: a profiling tool written in Fortran. The program's MPI_SEND and
! MPI_BARRIER resolve to the tool's routines (f_pmpi_tool.f90: external
! procedures of the same names, as a tool library defines them), which count the
! calls and reach the library through PMPI_SEND and PMPI_BARRIER. Checks
! that every call was counted once and still did its work: the messages
! arrive with their contents, and the barrier orders the ranks' output.
program f_pmpi
  use mpi
  use f_pmpi_counts, only: sends, barriers
  implicit none
  integer, parameter :: n = 5, rounds = 3
  integer :: rank, nprocs, ierr, peer, i, r, want_sends
  integer :: buf(n), status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  ! A ring: each rank sends ROUNDS messages to the next one and receives
  ! as many from the previous.
  peer = mod(rank + 1, nprocs)
  do r = 1, rounds
    if (mod(rank, 2) == 0) then
      buf = [(rank * 1000 + r * 10 + i, i = 1, n)]
      call MPI_Send(buf, n, MPI_INTEGER, peer, r, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_SEND through PMPI_SEND returned an error')
      call recv_check(r)
    else
      call recv_check(r)
      buf = [(rank * 1000 + r * 10 + i, i = 1, n)]
      call MPI_Send(buf, n, MPI_INTEGER, peer, r, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_SEND through PMPI_SEND returned an error')
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_BARRIER through PMPI_BARRIER returned an error')
  end do
  want_sends = rounds
  call check(sends == want_sends, 'the tool did not see every MPI_SEND')
  call check(barriers == rounds, 'the tool did not see every MPI_BARRIER')
  if (rank == 0) write (*, '(a, i0, a, i0, a)') 'f_pmpi: ', sends, &
      ' sends and ', barriers, ' barriers a rank counted by the tool'
  call MPI_Finalize(ierr)

contains

  subroutine recv_check(r)
    integer, intent(in) :: r
    integer :: src
    src = mod(rank - 1 + nprocs, nprocs)
    call MPI_Recv(buf, n, MPI_INTEGER, src, r, MPI_COMM_WORLD, status, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_RECV failed')
    do i = 1, n
      call check(buf(i) == src * 1000 + r * 10 + i, 'a message sent through PMPI_SEND arrived wrong')
    end do
  end subroutine recv_check

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      write (0, '(a, i0, 2a)') 'f_pmpi: rank ', rank, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end program f_pmpi
