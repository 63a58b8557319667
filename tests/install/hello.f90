! hello.f90 -- hello.c in Fortran (use mpi_f08), built by the drop-in test
! with the installed mpifort and with find_package(MPI COMPONENTS Fortran).
program hello
  use mpi_f08
  implicit none
  integer :: rank, nprocs, total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  print '(a, i0, a, i0)', 'hello from rank ', rank, ' of ', nprocs
  flush (6)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (total == nprocs * (nprocs - 1) / 2) then
      print '(a)', 'hello: allreduce ok'
    else
      print '(a)', 'hello: allreduce WRONG'
    end if
  end if
  call MPI_Finalize()
  if (total /= nprocs * (nprocs - 1) / 2) error stop 1
end program hello
