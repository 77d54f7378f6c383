! f_p2p: point-to-point from Fortran through use mpi: blocking and
! nonblocking sends with statuses (source, tag, count), MPI_STATUS_IGNORE,
! MPI_ANY_SOURCE/MPI_ANY_TAG, Waitall with MPI_STATUSES_IGNORE, sendrecv
! around a ring, probe, a generalized request whose callbacks are Fortran
! procedures, and the error code of a bad call returned in ierror.
module f_p2p_greq
  ! a generalized request's callbacks in Fortran: query puts 77 + the
  ! extra_state in the status's tag, free and cancel count their calls
  use mpi
  implicit none
  integer :: frees = 0, cancels = 0
contains
  subroutine query(extra, status, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    status(MPI_SOURCE) = MPI_UNDEFINED
    status(MPI_TAG) = 77 + int(extra)
    call MPI_Status_set_elements(status, MPI_INTEGER, 2, ierr)
    call MPI_Status_set_cancelled(status, .false., ierr)
  end subroutine query
  subroutine freefn(extra, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    frees = frees + 1
    ierr = MPI_SUCCESS
  end subroutine freefn
  subroutine cancelfn(extra, complete, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    cancels = cancels + 1
    ierr = MPI_SUCCESS
  end subroutine cancelfn
end module f_p2p_greq

program f_p2p
  use mpi
  use f_check
  use f_p2p_greq
  implicit none
  integer :: greq
  integer :: ierr, rank, nproc, i, cnt, left, right
  integer :: status(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 2), reqs(2)
  double precision :: dbuf(10), dget(10)
  integer :: ibuf(5), iget(5), flag_src
  logical :: flag

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
  call check(.not. (status(MPI_SOURCE) /= left .or. status(MPI_TAG) /= left), 'sendrecv status source/tag')
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  call check(.not. (cnt /= 10 .or. dget(3) /= left * 100 + 3), 'sendrecv count')

  ! nonblocking, 3 integers of 5 announced: the status says 3
  ibuf = (/ (rank * 10 + i, i = 1, 5) /)
  iget = -1
  call MPI_Irecv(iget, 5, MPI_INTEGER, left, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 3, MPI_INTEGER, right, 7, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, stats, ierr)
  call MPI_Get_count(stats(:, 1), MPI_INTEGER, cnt, ierr)
  call check(.not. (cnt /= 3 .or. iget(3) /= left * 10 + 3 .or. iget(4) /= -1 .or. stats(MPI_SOURCE, 1) /= left), 'irecv count')
  call check(.not. (reqs(1) /= MPI_REQUEST_NULL .or. reqs(2) /= MPI_REQUEST_NULL), 'requests not freed')

  ! probe, then receive with MPI_STATUS_IGNORE; Waitall with MPI_STATUSES_IGNORE
  call MPI_Isend(ibuf, 5, MPI_INTEGER, right, 9, MPI_COMM_WORLD, reqs(1), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(left, 9, MPI_COMM_WORLD, flag, status, ierr)
  end do
  flag_src = status(MPI_SOURCE)
  call MPI_Recv(iget, 5, MPI_INTEGER, flag_src, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(.not. (iget(5) /= left * 10 + 5), 'probe/recv')

  ! a generalized request with Fortran callbacks, completed at once
  call MPI_Grequest_start(query, freefn, cancelfn, 3_MPI_ADDRESS_KIND, greq, ierr)
  call MPI_Grequest_complete(greq, ierr)
  call MPI_Wait(greq, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  call check(status(MPI_TAG) == 80 .and. cnt == 2 .and. greq == MPI_REQUEST_NULL, 'Grequest query')
  call check(frees == 1 .and. cancels == 0, 'Grequest free')

  ! a bad rank: with MPI_ERRORS_RETURN the error comes back in ierr
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(ibuf, 1, MPI_INTEGER, nproc + 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, i, ierr)
  call check(.not. (i /= MPI_ERR_RANK), 'bad rank gave class')

  call finish('f_p2p')
end program f_p2p
