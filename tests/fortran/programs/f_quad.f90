! f_quad: the 16-byte kinds from Fortran (use mpi): REAL(16) as MPI_REAL16,
! COMPLEX(16) as MPI_COMPLEX32, INTEGER(16) as MPI_INTEGER16, with
! MPI_SIZEOF, MPI_Type_size and reductions that hold only in 16-byte
! precision (a sum of 1 + r * 2^-100; 2^100 + r beyond 64 bits), a product
! of i, and a ring exchange. BDMPI only: Open MPI 4.1 reduces MPI_REAL16
! as a long double and has no MPI_INTEGER16. Rank 0 prints "f_quad: ok".
program f_quad
  use mpi
  implicit none
  integer, parameter :: qp = 16, ip = 16
  real(qp), parameter :: tiny = 2.0_qp ** (-100)
  real(qp) :: mine, total, q(2), qin(2)
  complex(qp) :: unit, prod, want_prod
  integer(ip) :: big, isum, iwant
  integer :: rank, nranks, ierr, sz, r, next, prev
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)

  call MPI_Type_size(MPI_REAL16, sz, ierr)
  call check(sz == 16, 'MPI_Type_size(MPI_REAL16)')
  call MPI_Type_size(MPI_COMPLEX32, sz, ierr)
  call check(sz == 32, 'MPI_Type_size(MPI_COMPLEX32)')
  call MPI_Type_size(MPI_INTEGER16, sz, ierr)
  call check(sz == 16, 'MPI_Type_size(MPI_INTEGER16)')
  call MPI_Sizeof(mine, sz, ierr)
  call check(sz == 16, 'MPI_Sizeof(real(16))')

  mine = 1.0_qp + rank * tiny
  call MPI_Allreduce(mine, total, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'Allreduce MPI_REAL16')
  call check(total == nranks + (nranks * (nranks - 1) / 2) * tiny, 'MPI_REAL16 SUM')

  unit = (0.0_qp, 1.0_qp)
  call MPI_Allreduce(unit, prod, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD, ierr)
  want_prod = (1.0_qp, 0.0_qp)
  do r = 1, nranks
    want_prod = want_prod * unit
  end do
  call check(prod == want_prod, 'MPI_COMPLEX32 PROD of i')

  big = 2_ip ** 100
  call MPI_Allreduce(big + rank, isum, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD, ierr)
  iwant = big * nranks + nranks * (nranks - 1) / 2
  call check(isum == iwant, 'MPI_INTEGER16 SUM')

  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  q = [rank * tiny, -1.0_qp]
  call MPI_Sendrecv(q, 2, MPI_REAL16, next, 1, qin, 2, MPI_REAL16, prev, 1, &
                    MPI_COMM_WORLD, status, ierr)
  call check(qin(1) == prev * tiny .and. qin(2) == -1.0_qp, 'MPI_REAL16 ring')

  if (rank == 0) print '(a)', 'f_quad: ok'
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      write (0, '(a,i0,a,a)') 'rank ', rank, ': check failed: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check

end program f_quad
