! f_comm: communicators and callbacks from Fortran (use mpi): a split by
! parity, dup/compare, names (strings both ways), the MPI_TAG_UB attribute,
! groups, a periodic Cartesian grid (LOGICAL arrays) and its sub-grid, a
! user-defined reduction and an error handler written in Fortran.
module f_comm_cb
  implicit none
  integer :: handler_calls = 0, handler_code = 0, handler_comm = 0, copies = 0, deletes = 0
  integer(kind=8) :: last_deleted = 0
contains
  ! c(i) = max(a(i), c(i)) on pairs of INTEGERs, as a user op (non-commutative
  ! flag given, so the order of operands is the standard's)
  subroutine pairmax(a, c, n, dtype)
    integer :: n, dtype
    integer :: a(2, n), c(2, n)
    integer :: i
    do i = 1, n
      if (a(1, i) > c(1, i)) c(:, i) = a(:, i)
    end do
  end subroutine pairmax
  ! attribute callbacks: the copy gives the new communicator twice the
  ! value plus extra_state; the delete counts (extra_state is 5)
  subroutine copy_twice(oldcomm, keyval, extra, valin, valout, flag, ierr)
    use mpi, only : MPI_ADDRESS_KIND, MPI_SUCCESS
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    copies = copies + 1
    valout = 2 * valin + extra
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy_twice
  subroutine count_delete(comm, keyval, val, extra, ierr)
    use mpi, only : MPI_ADDRESS_KIND, MPI_SUCCESS
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    last_deleted = val
    ierr = MPI_SUCCESS
  end subroutine count_delete
  subroutine on_error(comm, code)
    integer :: comm, code
    handler_calls = handler_calls + 1
    handler_code = code
    handler_comm = comm
  end subroutine on_error
end module f_comm_cb

program f_comm
  use mpi
  use f_comm_cb
  use f_check
  implicit none
  integer :: ierr, rank, nproc, half, hrank, hsize, dup, res, grp, wgrp, sub
  integer :: op, eh, i, len, cart, cart_rank, dims(2), coords(2), tmp(2, 3), got(2, 3), n
  integer :: cls, kv, kv2, dup2
  integer(kind=MPI_ADDRESS_KIND) :: aval
  integer(kind=MPI_ADDRESS_KIND) :: tagub
  logical :: flag, periods(2), remain(2)
  character(len=MPI_MAX_OBJECT_NAME) :: cname

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
  call MPI_Comm_rank(half, hrank, ierr)
  call MPI_Comm_size(half, hsize, ierr)
  ! key -rank: the order is reversed
  call check(hsize == (nproc + 1 - mod(rank, 2)) / 2 .and. hrank == hsize - 1 - rank / 2, 'Comm_split')
  i = rank
  call MPI_Allreduce(MPI_IN_PLACE, i, 1, MPI_INTEGER, MPI_MAX, half, ierr)
  call check(mod(i, 2) == mod(rank, 2), 'Allreduce on the split')
  call MPI_Comm_dup(half, dup, ierr)
  call MPI_Comm_compare(half, dup, res, ierr)
  call check(res == MPI_CONGRUENT, 'Comm_compare of a dup')
  call MPI_Comm_set_name(dup, 'the dup   ', ierr)
  call MPI_Comm_get_name(dup, cname, len, ierr)
  call check(cname == 'the dup' .and. len == 7, 'Comm_set_name/get_name')
  call MPI_Comm_free(dup, ierr)
  call check(dup == MPI_COMM_NULL, 'Comm_free sets MPI_COMM_NULL')
  call MPI_Comm_get_name(MPI_COMM_WORLD, cname, len, ierr)
  call check(cname == 'MPI_COMM_WORLD', 'name of MPI_COMM_WORLD')

  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag, ierr)
  call check(flag .and. tagub >= 32767, 'MPI_TAG_UB')

  call MPI_Comm_group(MPI_COMM_WORLD, wgrp, ierr)
  call MPI_Comm_group(half, grp, ierr)
  call MPI_Group_compare(wgrp, grp, res, ierr)
  call check((nproc == 1 .and. res == MPI_IDENT) .or. (nproc > 1 .and. res == MPI_UNEQUAL), 'Group_compare')
  call MPI_Group_free(grp, ierr)
  call MPI_Group_free(wgrp, ierr)
  call MPI_Comm_free(half, ierr)

  ! Cartesian: nproc x 1, periodic in the first dimension
  dims = 0
  call MPI_Dims_create(nproc, 2, dims, ierr)
  periods = (/ .true., .false. /)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Comm_rank(cart, cart_rank, ierr)
  call MPI_Cart_get(cart, 2, dims, periods, coords, ierr)
  call check(periods(1) .and. .not. periods(2), 'Cart_get periods')
  remain = (/ .true., .false. /)
  call MPI_Cart_sub(cart, remain, sub, ierr)
  call MPI_Comm_size(sub, n, ierr)
  call check(n == dims(1), 'Cart_sub')
  call MPI_Comm_free(sub, ierr)
  call MPI_Comm_free(cart, ierr)

  ! a user op: the pair with the largest first element, 3 pairs
  do i = 1, 3
    tmp(1, i) = mod(rank + i, nproc)
    tmp(2, i) = rank
  end do
  call MPI_Op_create(pairmax, .false., op, ierr)
  call MPI_Allreduce(tmp, got, 3, MPI_2INTEGER, op, MPI_COMM_WORLD, ierr)
  do i = 1, 3
    ! the largest first element is nproc-1, first held by rank (nproc-1-i) mod nproc
    call check(got(1, i) == nproc - 1 .and. got(2, i) == modulo(nproc - 1 - i, nproc), 'user op')
  end do
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'Op_free')

  ! attributes with callbacks written in Fortran, and the predefined ones
  call MPI_Comm_create_keyval(copy_twice, count_delete, kv, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv2, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_set_attr(dup, kv, 100_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(dup, kv2, 7_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(dup, dup2, ierr)
  call MPI_Comm_get_attr(dup2, kv, aval, flag, ierr)
  call check(flag .and. aval == 205 .and. copies == 1, 'Fortran copy callback')
  call MPI_Comm_get_attr(dup2, kv2, aval, flag, ierr)
  call check(flag .and. aval == 7, 'MPI_COMM_DUP_FN')
  call MPI_Comm_free(dup2, ierr)
  call check(deletes == 1 .and. last_deleted == 205, 'Fortran delete callback on free')
  call MPI_Comm_delete_attr(dup, kv, ierr)
  call check(deletes == 2 .and. last_deleted == 100, 'Fortran delete callback on delete_attr')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free_keyval(kv, ierr)
  call MPI_Comm_free_keyval(kv2, ierr)
  call check(kv == MPI_KEYVAL_INVALID, 'Comm_free_keyval')

  ! an error handler in Fortran: called with the communicator and the code
  call MPI_Comm_create_errhandler(on_error, eh, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh, ierr)
  call MPI_Send(i, 1, MPI_INTEGER, -77, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(handler_code, cls, ierr)
  call check(handler_calls == 1 .and. cls == MPI_ERR_RANK .and. handler_comm == MPI_COMM_WORLD, 'Fortran error handler')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  call MPI_Errhandler_free(eh, ierr)

  call finish('f_comm')
end program f_comm
