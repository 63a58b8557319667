! f_storage: a Fortran program's ALLOCATE'd arrays and the compiler's array
! temporaries (gfortran takes both from malloc) must be storage-backed like
! C's malloc: under a tiny --node-memory they are written back and dropped
! at blocking points, and must come back bit for bit.
!
! Usage: f_storage [MiB per array (default 3)] [steps (default 4)]
program f_storage
  use mpi_f08
  implicit none
  integer :: rank, nprocs, step, steps, mib, i
  integer(kind=8) :: n, k
  real(kind=8), allocatable :: a(:), b(:)
  integer(kind=8), allocatable :: c(:)
  real(kind=8) :: local, total, want
  character(len=16) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  mib = 3
  steps = 4
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) mib
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) steps
  end if
  n = int(mib, 8) * 1024 * 1024 / 8
  allocate (a(n), b(n), c(n))
  do k = 1, n
    a(k) = real(rank, 8) * 1.0d7 + real(k, 8)
    c(k) = pattern(k, 0)
  end do
  b = 0

  do step = 1, steps
    ! An array temporary as large as a: the right-hand side overlaps the
    ! left, so gfortran evaluates it into a malloc'ed buffer first.
    a(1:n) = a(n:1:-1)
    b = b + a
    do k = 1, n
      c(k) = ieor(c(k), pattern(k, step))
    end do
    local = sum(b(1:n:4097))
    call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                       MPI_COMM_WORLD)
    call MPI_Barrier(MPI_COMM_WORLD)
    ! a holds the original order after an even number of reversals.
    do k = 1, n
      want = real(rank, 8) * 1.0d7 + real(merge(n + 1 - k, k, mod(step, 2) == 1), 8)
      if (a(k) /= want) call fail('a', step, k)
    end do
    want = 0
    do i = 0, nprocs - 1
      do k = 1, n, 4097
        want = want + expected_b(i, k, step)
      end do
    end do
    if (abs(total - want) > 1.0d-6 * abs(want)) call fail('sum', step, 0_8)
  end do
  do k = 1, n
    if (c(k) /= expected_c(k, steps)) call fail('c', steps, k)
  end do
  deallocate (a, b, c)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'f_storage: ', nprocs, ' ranks ok'
  call MPI_Finalize()

contains

  pure integer(kind=8) function pattern(k, v)
    integer(kind=8), intent(in) :: k
    integer, intent(in) :: v
    pattern = ieor(k * 2654435761_8, int(v, 8) * 40503_8 + int(rank, 8))
  end function pattern

  pure integer(kind=8) function expected_c(k, upto)
    integer(kind=8), intent(in) :: k
    integer, intent(in) :: upto
    integer :: v
    expected_c = pattern(k, 0)
    do v = 1, upto
      expected_c = ieor(expected_c, pattern(k, v))
    end do
  end function expected_c

  ! b(k) after `step` steps on rank r: the sum of a(k) over the steps.
  pure real(kind=8) function expected_b(r, k, upto)
    integer, intent(in) :: r, upto
    integer(kind=8), intent(in) :: k
    integer :: v
    expected_b = 0
    do v = 1, upto
      expected_b = expected_b + real(r, 8) * 1.0d7 + &
                   real(merge(n + 1 - k, k, mod(v, 2) == 1), 8)
    end do
  end function expected_b

  subroutine fail(what, at_step, at)
    character(len=*), intent(in) :: what
    integer, intent(in) :: at_step
    integer(kind=8), intent(in) :: at
    write (0, '(a, i0, 3a, i0, a, i0)') 'f_storage: rank ', rank, &
      ': FAILED: ', what, ' wrong at step ', at_step, ', element ', at
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail

end program f_storage
