! f_p2p: point-to-point from Fortran through use mpi: blocking and
! nonblocking sends with statuses (source, tag, count), MPI_STATUS_IGNORE,
! MPI_ANY_SOURCE/MPI_ANY_TAG, Waitall with MPI_STATUSES_IGNORE, sendrecv
! around a ring, probe, and the error code of a bad call returned in ierror.
program f_p2p
  use mpi
  implicit none
  integer :: ierr, rank, nproc, i, cnt, left, right, errs
  integer :: status(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 2), reqs(2)
  double precision :: dbuf(10), dget(10)
  integer :: ibuf(5), iget(5), flag_src
  logical :: flag

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)

  ! ring: each rank sends 10 doubles to the right, tag = its rank
  do i = 1, 10
    dbuf(i) = rank * 100 + i
  end do
  call MPI_Sendrecv(dbuf, 10, MPI_DOUBLE_PRECISION, right, rank, &
                    dget, 10, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, &
                    MPI_COMM_WORLD, status, ierr)
  if (status(MPI_SOURCE) /= left .or. status(MPI_TAG) /= left) then
    print *, 'rank', rank, ': sendrecv status source/tag', status(MPI_SOURCE), status(MPI_TAG)
    errs = errs + 1
  end if
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  if (cnt /= 10 .or. dget(3) /= left * 100 + 3) then
    print *, 'rank', rank, ': sendrecv count', cnt, 'value', dget(3)
    errs = errs + 1
  end if

  ! nonblocking, 3 integers of 5 announced: the status says 3
  ibuf = (/ (rank * 10 + i, i = 1, 5) /)
  iget = -1
  call MPI_Irecv(iget, 5, MPI_INTEGER, left, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 3, MPI_INTEGER, right, 7, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, stats, ierr)
  call MPI_Get_count(stats(:, 1), MPI_INTEGER, cnt, ierr)
  if (cnt /= 3 .or. iget(3) /= left * 10 + 3 .or. iget(4) /= -1 .or. stats(MPI_SOURCE, 1) /= left) then
    print *, 'rank', rank, ': irecv count', cnt, iget
    errs = errs + 1
  end if
  if (reqs(1) /= MPI_REQUEST_NULL .or. reqs(2) /= MPI_REQUEST_NULL) then
    print *, 'rank', rank, ': requests not freed', reqs
    errs = errs + 1
  end if

  ! probe, then receive with MPI_STATUS_IGNORE; Waitall with MPI_STATUSES_IGNORE
  call MPI_Isend(ibuf, 5, MPI_INTEGER, right, 9, MPI_COMM_WORLD, reqs(1), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(left, 9, MPI_COMM_WORLD, flag, status, ierr)
  end do
  flag_src = status(MPI_SOURCE)
  call MPI_Recv(iget, 5, MPI_INTEGER, flag_src, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)
  if (iget(5) /= left * 10 + 5) then
    print *, 'rank', rank, ': probe/recv', iget
    errs = errs + 1
  end if

  ! a bad rank: with MPI_ERRORS_RETURN the error comes back in ierr
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(ibuf, 1, MPI_INTEGER, nproc + 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, i, ierr)
  if (i /= MPI_ERR_RANK) then
    print *, 'rank', rank, ': bad rank gave class', i
    errs = errs + 1
  end if

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (errs == 0) then
      print *, 'f_p2p: ok'
    else
      print *, 'f_p2p: errors', errs
    end if
  end if
  call MPI_Finalize(ierr)
  if (errs /= 0) stop 1
end program f_p2p
