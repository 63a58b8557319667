! f_datarep: MPI_REGISTER_DATAREP with Fortran procedures. A
! representation "f_swapped" keeps each INTEGER byte-reversed in the file:
! its write and read conversions (called with the datatype, the count, the
! position in the user's buffer and the extra state, all by reference) and
! its extent procedure are Fortran; a view in it writes the reversed bytes
! (read back through a native view) and reads the values back. A second
! representation with MPI_CONVERSION_FN_NULL (the data as they are) and a
! repeated name (MPI_ERR_DUP_DATAREP) too. BDMPI only: Open MPI 4.1 refuses
! MPI_REGISTER_DATAREP (OMPIO) or user representations in views (ROMIO).
module f_datarep_conv
  use mpi
  implicit none
  integer :: reads = 0, writes = 0, extents = 0
  integer(kind=MPI_ADDRESS_KIND), parameter :: kExtra = 77
contains
  ! An INTEGER's four bytes in the other order.
  elemental integer function swapped(v)
    integer, intent(in) :: v
    character(len=4) :: c
    c = transfer(v, c)
    swapped = transfer(c(4:4) // c(3:3) // c(2:2) // c(1:1), v)
  end function swapped

  subroutine swapped_extent(datatype, extent, extra_state, ierror)
    integer :: datatype, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    extents = extents + 1
    ierror = MPI_SUCCESS
    if (extra_state /= kExtra .or. datatype /= MPI_INTEGER) then
      ierror = MPI_ERR_TYPE
      return
    end if
    extent = 4
  end subroutine swapped_extent

  subroutine swapped_write(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    integer :: userbuf(*), filebuf(*), datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: i
    writes = writes + 1
    ierror = MPI_SUCCESS
    if (extra_state /= kExtra .or. datatype /= MPI_INTEGER) then
      ierror = MPI_ERR_TYPE
      return
    end if
    do i = 1, count
      filebuf(i) = swapped(userbuf(position + i))
    end do
  end subroutine swapped_write

  subroutine swapped_read(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    integer :: userbuf(*), filebuf(*), datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: i
    reads = reads + 1
    ierror = MPI_SUCCESS
    if (extra_state /= kExtra .or. datatype /= MPI_INTEGER) then
      ierror = MPI_ERR_TYPE
      return
    end if
    do i = 1, count
      userbuf(position + i) = swapped(filebuf(i))
    end do
  end subroutine swapped_read
end module f_datarep_conv

program f_datarep
  use mpi
  use f_datarep_conv
  implicit none
  integer, parameter :: n = 6
  integer :: rank, ierr, fh, i, values(n), back(n), raw(n), status(MPI_STATUS_SIZE)
  integer(kind=MPI_OFFSET_KIND) :: disp
  integer(kind=MPI_ADDRESS_KIND) :: extent
  character(len=256) :: dir, path
  integer :: dirlen, dirstat, pid

  call MPI_Init(ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  call MPI_Register_datarep('f_swapped', swapped_read, swapped_write, swapped_extent, kExtra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_REGISTER_DATAREP failed')
  call MPI_Register_datarep('f_swapped', swapped_read, swapped_write, swapped_extent, kExtra, ierr)
  call MPI_Error_class(ierr, i, dirstat)
  call check(i == MPI_ERR_DUP_DATAREP, 'a name registered twice: not MPI_ERR_DUP_DATAREP')
  call MPI_Register_datarep('f_as_is', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            swapped_extent, kExtra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_REGISTER_DATAREP with MPI_CONVERSION_FN_NULL failed')

  ! A file of the job's own: rank 0 names it.
  if (rank == 0) then
    call get_environment_variable('TMPDIR', dir, dirlen, dirstat)
    if (dirstat /= 0 .or. dirlen == 0) dir = '/tmp'
    pid = getpid()
    write (path, '(a, a, i0)') trim(dir), '/f_datarep.', pid
  end if
  call MPI_Bcast(path, len(path), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)

  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_RDWR + MPI_MODE_CREATE, &
                     MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_OPEN failed')
  disp = int(rank, MPI_OFFSET_KIND) * n * 4
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'f_swapped', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_SET_VIEW with the Fortran representation failed')
  call MPI_File_get_type_extent(fh, MPI_INTEGER, extent, ierr)
  call check(ierr == MPI_SUCCESS .and. extent == 4 .and. extents >= 1, &
             'MPI_FILE_GET_TYPE_EXTENT did not ask the extent procedure')
  do i = 1, n
    values(i) = 1000 * rank + 17 * i - 40
  end do
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, values, n, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS .and. writes >= 1, 'writing through the write conversion failed')
  back = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, n, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS .and. reads >= 1, 'reading through the read conversion failed')
  call check(all(back == values), 'the read conversion did not give the values back')
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)

  ! In the file the bytes are reversed.
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, raw, n, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS, 'reading the file natively failed')
  call check(all(raw == swapped(values)), 'the file does not hold the reversed bytes')
  ! MPI_CONVERSION_FN_NULL: the file's bytes as they are.
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'f_as_is', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_SET_VIEW with MPI_CONVERSION_FN_NULL failed')
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, raw, n, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS .and. all(raw == swapped(values)), &
             'MPI_CONVERSION_FN_NULL changed the data')
  call MPI_File_close(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_File_delete(trim(path), MPI_INFO_NULL, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'f_datarep: Fortran data representations ok'
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      write (0, '(a, i0, 2a)') 'f_datarep: rank ', rank, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end program f_datarep
