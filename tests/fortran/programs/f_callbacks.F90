! f_callbacks: Fortran procedures as MPI callbacks. Attribute copy and
! delete callbacks (MPI_COMM_CREATE_KEYVAL, MPI_TYPE_CREATE_KEYVAL, the
! MPI-1 MPI_KEYVAL_CREATE) run when a communicator or datatype is
! duplicated or freed, with the keyval's extra state and the attribute by
! reference; the predefined MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, ...
! copy or drop the value; a generalized request's query, free and cancel
! procedures run from MPI_WAIT, the request's release and MPI_CANCEL; on a
! window, attribute callbacks (MPI_WIN_CREATE_KEYVAL, MPI_WIN_DUP_FN, ...)
! run when the attribute or the window goes, and an error handler made by
! MPI_WIN_CREATE_ERRHANDLER gets the window and the error code. Built
! with mpif.h, or module mpi with USE_MPI_MODULE. The first failed check
! prints what and aborts the job.
module f_cb_state
  implicit none
  integer :: copies = 0, deletes = 0, copies1 = 0, deletes1 = 0
  integer :: queries = 0, frees = 0, cancels = 0
  integer :: win_errors = 0, win_error_code = -1, win_error_win = -1
  logical :: cancel_complete = .true.
  integer(kind=8) :: last_deleted = -1, last_extra = -1
end module f_cb_state

program f_callbacks
#ifdef USE_MPI_MODULE
  use mpi
#endif
  use f_cb_state
  implicit none
#ifndef USE_MPI_MODULE
  include 'mpif.h'
#endif
  external :: my_copy, my_delete, my_copy1, my_delete1
  external :: my_query, my_free, my_cancel, my_win_errhandler
  integer :: rank, ierr, key, dupkey, nullkey, tkey, key1, dup, dup2, dtype
  integer :: win, wkey, wdupkey, errh, winbuf(4)
  integer :: req, count, ival, status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  ! A keyval with Fortran callbacks: MPI_COMM_DUP calls the copy one with
  ! the extra state and the value, and keeps what it returns.
  extra = 4200 + rank
  call MPI_Comm_create_keyval(my_copy, my_delete, key, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_COMM_CREATE_KEYVAL failed')
  val = 1000 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, val, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_COMM_DUP failed')
  call check(copies == 1, 'MPI_COMM_DUP did not call the Fortran copy callback once')
  call check(last_extra == 4200 + rank, 'the copy callback got the wrong extra state')
  call MPI_Comm_get_attr(dup, key, val, flag, ierr)
  call check(flag .and. val == 1001 + rank, 'the copied attribute is not what the copy callback returned')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, val, flag, ierr)
  call check(flag .and. val == 1000 + rank, 'the original attribute changed')
  call MPI_Comm_free(dup, ierr)
  call check(deletes == 1 .and. last_deleted == 1001 + rank, &
             'MPI_COMM_FREE did not call the delete callback with the copy''s value')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call check(deletes == 2 .and. last_deleted == 1000 + rank, &
             'MPI_COMM_DELETE_ATTR did not call the delete callback with the value')
  call MPI_Comm_free_keyval(key, ierr)

  ! The predefined callbacks: MPI_COMM_DUP_FN copies, MPI_COMM_NULL_COPY_FN not.
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dupkey, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, nullkey, extra, ierr)
  val = 77
  call MPI_Comm_set_attr(MPI_COMM_WORLD, dupkey, val, ierr)
  val = 88
  call MPI_Comm_set_attr(MPI_COMM_WORLD, nullkey, val, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, dupkey, val, flag, ierr)
  call check(flag .and. val == 77, 'MPI_COMM_DUP_FN did not copy the attribute')
  call MPI_Comm_get_attr(dup, nullkey, val, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN copied the attribute')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, dupkey, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, nullkey, ierr)
  call MPI_Comm_free_keyval(dupkey, ierr)
  call MPI_Comm_free_keyval(nullkey, ierr)

  ! On a datatype, with the predefined MPI_TYPE_DUP_FN.
  call MPI_Type_contiguous(2, MPI_INTEGER, dtype, ierr)
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_TYPE_CREATE_KEYVAL failed')
  val = 55
  call MPI_Type_set_attr(dtype, tkey, val, ierr)
  call MPI_Type_dup(dtype, dup2, ierr)
  call MPI_Type_get_attr(dup2, tkey, val, flag, ierr)
  call check(flag .and. val == 55, 'MPI_TYPE_DUP_FN did not copy the datatype''s attribute')
  call MPI_Type_free(dup2, ierr)
  call MPI_Type_free(dtype, ierr)
  call MPI_Type_free_keyval(tkey, ierr)

  ! MPI-1: default INTEGER extra state and values.
  call MPI_Keyval_create(my_copy1, my_delete1, key1, 31, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_KEYVAL_CREATE failed')
  call MPI_Attr_put(MPI_COMM_WORLD, key1, 500 + rank, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call check(copies1 == 1, 'MPI_COMM_DUP did not call the MPI-1 copy callback')
  call MPI_Attr_get(dup, key1, ival, flag, ierr)
  call check(flag .and. ival == 2 * (500 + rank) + 31, 'the MPI-1 copy callback''s value was not kept')
  call MPI_Comm_free(dup, ierr)
  call check(deletes1 == 1, 'MPI_COMM_FREE did not call the MPI-1 delete callback')
  call MPI_Attr_delete(MPI_COMM_WORLD, key1, ierr)
  call check(deletes1 == 2, 'MPI_ATTR_DELETE did not call the MPI-1 delete callback')
  call MPI_Keyval_free(key1, ierr)

  ! A generalized request completed by the program: MPI_WAIT gets its
  ! status from the query procedure, and releasing it calls the free one.
  extra = 7
  call MPI_Grequest_start(my_query, my_free, my_cancel, extra, req, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_GREQUEST_START failed')
  call MPI_Test(req, flag, status, ierr)
  call check(.not. flag, 'a generalized request tested complete before MPI_GREQUEST_COMPLETE')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WAIT on the generalized request failed')
  call check(queries == 1, 'MPI_WAIT did not call the query procedure once')
  call check(frees == 1, 'the free procedure did not run when the request was released')
  call check(req == MPI_REQUEST_NULL, 'MPI_WAIT did not free the generalized request')
  call check(status(MPI_TAG) == 7 .and. status(MPI_SOURCE) == rank, &
             'the status is not the one the query procedure made')
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  call check(count == 3, 'the query procedure''s element count did not arrive')
  ! Cancelled before it completes: the cancel procedure learns so.
  call MPI_Grequest_start(my_query, my_free, my_cancel, extra, req, ierr)
  call MPI_Cancel(req, ierr)
  call check(cancels == 1 .and. .not. cancel_complete, &
             'MPI_CANCEL did not call the cancel procedure with COMPLETE false')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call check(queries == 2 .and. frees == 2, 'the second generalized request was not queried and freed')

  ! A window's attributes: deleting one, and freeing the window, call the
  ! delete callback with the value; MPI_WIN_DUP_FN and _NULL_DELETE_FN are
  ! accepted (a window is never duplicated).
  call MPI_Win_create(winbuf, int(16, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &
                      win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WIN_CREATE failed')
  deletes = 0
  extra = 99
  call MPI_Win_create_keyval(my_copy, my_delete, wkey, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WIN_CREATE_KEYVAL failed')
  call MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, wdupkey, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WIN_CREATE_KEYVAL with the predefined callbacks failed')
  val = 3000 + rank
  call MPI_Win_set_attr(win, wkey, val, ierr)
  call MPI_Win_get_attr(win, wkey, val, flag, ierr)
  call check(flag .and. val == 3000 + rank, 'MPI_WIN_GET_ATTR did not give the value set')
  call MPI_Win_delete_attr(win, wkey, ierr)
  call check(deletes == 1 .and. last_deleted == 3000 + rank, &
             'MPI_WIN_DELETE_ATTR did not call the delete callback with the value')
  val = 4000 + rank
  call MPI_Win_set_attr(win, wkey, val, ierr)
  call MPI_Win_set_attr(win, wdupkey, val, ierr)
  ! A window error handler in Fortran, called by MPI_WIN_CALL_ERRHANDLER.
  call MPI_Win_create_errhandler(my_win_errhandler, errh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WIN_CREATE_ERRHANDLER failed')
  call MPI_Win_set_errhandler(win, errh, ierr)
  call MPI_Errhandler_free(errh, ierr)
  call MPI_Win_call_errhandler(win, MPI_ERR_OTHER, ierr)
  call check(win_errors == 1 .and. win_error_code == MPI_ERR_OTHER .and. win_error_win == win, &
             'the Fortran window error handler did not get the window and the code')
  call MPI_Win_free(win, ierr)
  call check(deletes == 2 .and. last_deleted == 4000 + rank, &
             'MPI_WIN_FREE did not call the delete callback with the value')
  call MPI_Win_free_keyval(wkey, ierr)
  call MPI_Win_free_keyval(wdupkey, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'f_callbacks: attribute, generalized-request and window callbacks ok'
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      write (0, '(a, i0, 2a)') 'f_callbacks: rank ', rank, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end program f_callbacks

subroutine my_copy(oldcomm, keyval, extra_state, attribute_val_in, &
                   attribute_val_out, flag, ierror)
  use f_cb_state
  implicit none
  integer :: oldcomm, keyval, ierror
  integer(kind=8) :: extra_state, attribute_val_in, attribute_val_out
  logical :: flag
  copies = copies + 1
  last_extra = extra_state
  attribute_val_out = attribute_val_in + 1
  flag = .true.
  ierror = 0
end subroutine my_copy

subroutine my_delete(comm, keyval, attribute_val, extra_state, ierror)
  use f_cb_state
  implicit none
  integer :: comm, keyval, ierror
  integer(kind=8) :: attribute_val, extra_state
  deletes = deletes + 1
  last_deleted = attribute_val
  ierror = 0
end subroutine my_delete

subroutine my_copy1(oldcomm, keyval, extra_state, attribute_val_in, &
                    attribute_val_out, flag, ierror)
  use f_cb_state
  implicit none
  integer :: oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, ierror
  logical :: flag
  copies1 = copies1 + 1
  attribute_val_out = 2 * attribute_val_in + extra_state
  flag = .true.
  ierror = 0
end subroutine my_copy1

subroutine my_delete1(comm, keyval, attribute_val, extra_state, ierror)
  use f_cb_state
  implicit none
  integer :: comm, keyval, attribute_val, extra_state, ierror
  deletes1 = deletes1 + 1
  ierror = 0
end subroutine my_delete1

subroutine my_query(extra_state, status, ierror)
  use f_cb_state
#ifdef USE_MPI_MODULE
  use mpi
#endif
  implicit none
#ifndef USE_MPI_MODULE
  include 'mpif.h'
#endif
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: status(MPI_STATUS_SIZE), ierror, rank
  queries = queries + 1
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierror)
  call MPI_Status_set_cancelled(status, .false., ierror)
  status(MPI_SOURCE) = rank
  status(MPI_TAG) = int(extra_state)
  ierror = MPI_SUCCESS
end subroutine my_query

subroutine my_free(extra_state, ierror)
  use f_cb_state
  implicit none
  integer(kind=8) :: extra_state
  integer :: ierror
  frees = frees + 1
  ierror = 0
end subroutine my_free

subroutine my_cancel(extra_state, complete, ierror)
  use f_cb_state
  implicit none
  integer(kind=8) :: extra_state
  logical :: complete
  integer :: ierror
  cancels = cancels + 1
  cancel_complete = complete
  ierror = 0
end subroutine my_cancel

subroutine my_win_errhandler(win, error_code)
  use f_cb_state
  implicit none
  integer :: win, error_code
  win_errors = win_errors + 1
  win_error_code = error_code
  win_error_win = win
end subroutine my_win_errhandler
