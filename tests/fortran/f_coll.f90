! f_coll: collectives on the named Fortran datatypes through use mpi, with
! MPI_IN_PLACE where the standard allows it: every reduction that applies to
! INTEGER, REAL, DOUBLE PRECISION, COMPLEX, DOUBLE COMPLEX and LOGICAL, the
! pair types with MAXLOC/MINLOC, CHARACTER broadcast, gathers and alltoall.
program f_coll
  use mpi
  use f_check
  implicit none
  integer :: ierr, rank, nproc, i, root
  integer :: ival(3), ipair(2, 2), iall(64), ione
  real :: rval(2), rpair(2)
  double precision :: dval(4), dpair(2)
  complex :: cval
  double complex :: zval
  logical :: land, lor, lxor
  character(len=16) :: name
  integer(kind=MPI_ADDRESS_KIND) :: aval

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)

  ival = (/ rank + 1, -rank, 2 * rank /)
  call MPI_Allreduce(MPI_IN_PLACE, ival, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ival(1) == nproc * (nproc + 1) / 2 .and. ival(2) == -nproc * (nproc - 1) / 2, 'INTEGER SUM')
  ival = rank
  call MPI_Allreduce(MPI_IN_PLACE, ival, 3, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(all(ival == nproc - 1), 'INTEGER MAX')
  ival = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD, ierr)
  call check(ival(1) == product((/ (i, i = 1, nproc) /)), 'INTEGER PROD')
  ival = ishft(1, rank)
  call MPI_Allreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_BOR, MPI_COMM_WORLD, ierr)
  call check(ival(1) == ishft(1, nproc) - 1, 'INTEGER BOR')

  rval = (/ real(rank), 0.5 /)
  call MPI_Allreduce(MPI_IN_PLACE, rval, 2, MPI_REAL, MPI_MIN, MPI_COMM_WORLD, ierr)
  call check(rval(1) == 0.0 .and. rval(2) == 0.5, 'REAL MIN')
  dval = rank * 0.25d0
  call MPI_Allreduce(MPI_IN_PLACE, dval, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(abs(dval(4) - 0.25d0 * nproc * (nproc - 1) / 2) < 1d-12, 'DOUBLE PRECISION SUM')
  cval = cmplx(rank, 1)
  call MPI_Allreduce(MPI_IN_PLACE, cval, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(real(cval) == nproc * (nproc - 1) / 2 .and. aimag(cval) == nproc, 'COMPLEX SUM')
  zval = dcmplx(0d0, 1d0)
  call MPI_Allreduce(MPI_IN_PLACE, zval, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD, ierr)
  call check(abs(zval - (0d0, 1d0)**nproc) < 1d-12, 'DOUBLE COMPLEX PROD')

  ! LOGICAL: rank 0 is .FALSE., the others .TRUE.
  land = rank /= 0
  lor = land
  lxor = .true.
  call MPI_Allreduce(MPI_IN_PLACE, land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, lxor, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD, ierr)
  call check(.not. land .and. (lor .eqv. (nproc > 1)) .and. (lxor .eqv. (mod(nproc, 2) == 1)), 'LOGICAL LAND/LOR/LXOR')

  ! pairs: (value, rank); the largest value is at the last rank
  ipair(1, 1) = 10 * rank
  ipair(2, 1) = rank
  call MPI_Allreduce(ipair(:, 1), ipair(:, 2), 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(ipair(1, 2) == 10 * (nproc - 1) .and. ipair(2, 2) == nproc - 1, '2INTEGER MAXLOC')
  rpair = (/ real(5 - rank), real(rank) /)
  call MPI_Allreduce(MPI_IN_PLACE, rpair, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  call check(rpair(2) == nproc - 1, '2REAL MINLOC')
  dpair = (/ 1d0, dble(rank) /)
  call MPI_Allreduce(MPI_IN_PLACE, dpair, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(dpair(1) == 1d0 .and. dpair(2) == 0d0, '2DOUBLE_PRECISION MAXLOC (ties: lowest rank)')

  ! Reduce with MPI_IN_PLACE at the root, the last rank as root
  root = nproc - 1
  ione = rank + 1
  if (rank == root) then
    call MPI_Reduce(MPI_IN_PLACE, ione, 1, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    call check(ione == nproc * (nproc + 1) / 2, 'Reduce IN_PLACE')
  else
    call MPI_Reduce(ione, ione, 1, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  end if

  ! CHARACTER broadcast
  name = 'nothing'
  if (rank == root) name = 'from the root'
  call MPI_Bcast(name, 16, MPI_CHARACTER, root, MPI_COMM_WORLD, ierr)
  call check(name == 'from the root', 'CHARACTER Bcast')

  ! Allgather in place: each rank fills its own slot
  iall = -1
  iall(rank + 1) = 100 + rank
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, iall, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(iall(1:nproc) == (/ (100 + i, i = 0, nproc - 1) /)), 'Allgather IN_PLACE')

  ! Alltoall: send rank*10+j to rank j
  iall(1:nproc) = (/ (rank * 10 + i, i = 0, nproc - 1) /)
  call MPI_Alltoall(iall, 1, MPI_INTEGER, iall(nproc + 1), 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(iall(nproc + 1:2 * nproc) == (/ (i * 10 + rank, i = 0, nproc - 1) /)), 'Alltoall')

  ! Scan and Exscan
  ione = rank + 1
  call MPI_Scan(MPI_IN_PLACE, ione, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ione == (rank + 1) * (rank + 2) / 2, 'Scan IN_PLACE')

  ! Reduce_scatter_block: rank r gets the sum of element r
  iall(1:nproc) = 1
  call MPI_Reduce_scatter_block(iall, ione, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ione == nproc, 'Reduce_scatter_block')

  ! INTEGER(KIND=MPI_ADDRESS_KIND) with MPI_AINT
  aval = 2_MPI_ADDRESS_KIND**40 + rank
  call MPI_Allreduce(MPI_IN_PLACE, aval, 1, MPI_AINT, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(aval == 2_MPI_ADDRESS_KIND**40 + nproc - 1, 'MPI_AINT MAX')

  ! MPI_SIZEOF: the bytes of one element, scalar or array
  call MPI_Sizeof(dval, i, ierr)
  call check(i == 8, 'MPI_SIZEOF of a DOUBLE PRECISION array')
  call MPI_Sizeof(cval, i, ierr)
  call check(i == 8, 'MPI_SIZEOF of COMPLEX')
  call MPI_Sizeof(land, i, ierr)
  call check(i == 4, 'MPI_SIZEOF of LOGICAL')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call finish('f_coll')
end program f_coll
