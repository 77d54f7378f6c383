! f08_all: the same ground as the use mpi programs, through use mpi_f08:
! TYPE(MPI_Comm)/TYPE(MPI_Status)/TYPE(MPI_Request) arguments, ierror
! left out, point-to-point with statuses (status%MPI_SOURCE...), waitall
! with MPI_STATUSES_IGNORE, collectives on Fortran types with MPI_IN_PLACE,
! a derived type, a communicator split (== and /= on handles) and a user
! op with the Fortran 2008 signature (TYPE(C_PTR), VALUE buffers).
module f08_all_ops
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
contains
  ! inoutvec(i) = the digits of invec(i) then those of inoutvec(i): not
  ! commutative (the order of the ranks shows in the result), associative
  subroutine shift_add(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    integer :: i, p
    call c_f_pointer(invec, a, (/ len /))
    call c_f_pointer(inoutvec, b, (/ len /))
    if (datatype /= MPI_INTEGER) b = -999
    do i = 1, len
      p = 10
      do while (p <= b(i))
        p = p * 10
      end do
      b(i) = a(i) * p + b(i)
    end do
  end subroutine shift_add
end module f08_all_ops

program f08_all
  use mpi_f08
  use f08_all_ops
  use f_check
  implicit none
  integer :: rank, nproc, left, right, cnt, i, ierr, hrank, hsize, want
  type(MPI_Status) :: status
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: half
  type(MPI_Datatype) :: rowt
  type(MPI_Op) :: op
  integer :: ibuf(5), iget(5), ival
  double precision :: a(3, 4), b(3, 4), dsum(2)
  logical :: lval
  ! the user op matches the standard's abstract interface (checked by the compiler)
  procedure(MPI_User_function), pointer :: opfn => null()
  integer(kind=MPI_COUNT_KIND) :: ccount

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call check(ierr == MPI_SUCCESS, 'ierror given')
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)

  ibuf = (/ (rank * 10 + i, i = 1, 5) /)
  call MPI_Sendrecv(ibuf, 4, MPI_INTEGER, right, 5, iget, 5, MPI_INTEGER, MPI_ANY_SOURCE, &
                    MPI_ANY_TAG, MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call check(status%MPI_SOURCE == left .and. status%MPI_TAG == 5 .and. cnt == 4 .and. &
             iget(4) == left * 10 + 4, 'Sendrecv status')

  ! the large-count forms through the same generic names: the counts' kind picks
  iget = -1
  call MPI_Sendrecv(ibuf, 3_MPI_COUNT_KIND, MPI_INTEGER, right, 8, iget, 5_MPI_COUNT_KIND, MPI_INTEGER, &
                    left, 8, MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_INTEGER, ccount)
  call check(ccount == 3 .and. iget(3) == left * 10 + 3 .and. iget(4) == -1, 'Sendrecv_c and Get_count_c')

  iget = -1
  call MPI_Irecv(iget, 5, MPI_INTEGER, left, 6, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(ibuf, 5, MPI_INTEGER, right, 6, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(iget(5) == left * 10 + 5 .and. reqs(1) == MPI_REQUEST_NULL, 'Irecv/Isend/Waitall')

  ival = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(ival == nproc * (nproc + 1) / 2, 'Allreduce IN_PLACE')
  dsum = (/ dble(rank), 1d0 /)
  call MPI_Allreduce(MPI_IN_PLACE, dsum, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(dsum(2) == nproc, 'Allreduce DOUBLE PRECISION')
  lval = rank == 0
  call MPI_Allreduce(MPI_IN_PLACE, lval, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD)
  call check(lval, 'Allreduce LOGICAL LOR')

  ! row 2 of a 3x4 matrix to the right neighbour's row 3
  a = reshape((/ (dble(rank * 100 + i), i = 1, 12) /), (/ 3, 4 /))
  b = -1
  call MPI_Type_vector(4, 1, 3, MPI_DOUBLE_PRECISION, rowt)
  call MPI_Type_commit(rowt)
  call MPI_Sendrecv(a(2, 1), 1, rowt, right, 7, b(3, 1), 1, rowt, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(b(3, 4) == left * 100 + 11 .and. b(2, 4) == -1, 'vector type')
  call MPI_Type_free(rowt)
  call check(rowt == MPI_DATATYPE_NULL, 'Type_free')

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call check(half /= MPI_COMM_NULL, 'Comm_split')
  call MPI_Comm_rank(half, hrank)
  call MPI_Comm_size(half, hsize)
  call check(hrank == rank / 2, 'rank in the split')

  ! the user op, non-commutative: the result is the digits of the ranks in order
  opfn => shift_add
  call MPI_Op_create(opfn, .false., op)
  ival = hrank + 1
  call MPI_Allreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, op, half)
  want = 0
  do i = 1, hsize
    want = 10 * want + i
  end do
  call check(ival == want, 'user op (f08 signature)')
  call MPI_Op_free(op)
  call MPI_Comm_free(half)
  call check(half == MPI_COMM_NULL, 'Comm_free')

  call MPI_Sizeof(a, i)
  call check(i == 8, 'MPI_SIZEOF of a DOUBLE PRECISION matrix')
  call finish('f08_all')
end program f08_all
