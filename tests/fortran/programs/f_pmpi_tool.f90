! f_pmpi_tool: the profiling tool of f_pmpi.f90, in its own file as a tool
! library's would be. No mpif.h or module mpi here: their interfaces for
! MPI_SEND would name the procedure being defined.
module f_pmpi_counts
  implicit none
  integer :: sends = 0, barriers = 0
end module f_pmpi_counts

subroutine MPI_SEND(buf, count, datatype, dest, tag, comm, ierror)
  use f_pmpi_counts, only: sends
  implicit none
  integer :: buf(*)
  integer :: count, datatype, dest, tag, comm, ierror
  external :: PMPI_SEND
  sends = sends + 1
  call PMPI_SEND(buf, count, datatype, dest, tag, comm, ierror)
end subroutine MPI_SEND

subroutine MPI_BARRIER(comm, ierror)
  use f_pmpi_counts, only: barriers
  implicit none
  integer :: comm, ierror
  external :: PMPI_BARRIER
  barriers = barriers + 1
  call PMPI_BARRIER(comm, ierror)
end subroutine MPI_BARRIER

