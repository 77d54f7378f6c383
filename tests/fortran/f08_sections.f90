! f08_sections: non-contiguous array sections passed to use mpi_f08's
! TYPE(*), DIMENSION(..) buffers (MPI_SUBARRAYS_SUPPORTED = .TRUE.).  Each
! nonblocking call gets a section (a(1:n:2), a 2-D row b(2,:)), nothing is
! touched until the wait, then every element is checked: those of the
! section hold the data, the others their old values.  A copy-in/out by the
! compiler would leave the received data in a temporary (the receive lands
! nowhere the program sees).  Also: blocking calls on sections, a section
! that shares its datatype with MPI_IN_PLACE, a 2-D block b(1:2,1:3) whose
! elements are not equally spaced (a nonblocking reduction in place on it),
! and the clear error for what is not supported (a nonblocking reduction
! on two such blocks of different shapes).  2..4 ranks.
program f08_sections
  use mpi_f08
  use f_check
  implicit none
  integer, parameter :: n = 12
  integer :: rank, size, i, peer, ierr
  integer, asynchronous :: a(2*n), b(4, n), c(3*n), d(2*n)
  double precision, asynchronous :: r(3, n)
  type(MPI_Request) :: req(4)
  logical :: ok

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call check(MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED is .TRUE.')

  ! -- Isend/Irecv between pairs (0,1), (2,3): a(1:2n:2) -> b(2,:) and b(3,:) -> a(2:2n:2)
  if (rank < size - mod(size, 2)) then
    peer = ieor(rank, 1)
    a = [(-i, i = 1, 2*n)]
    b = -7
    b(3, :) = [(1000*rank + i, i = 1, n)]
    a(1:2*n:2) = [(100*rank + i, i = 1, n)]
    call MPI_Irecv(b(2, :), n, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, req(1))
    call MPI_Isend(a(1:2*n:2), n, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, req(2))
    call MPI_Isend(b(3, :), n, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, req(3))
    call MPI_Irecv(a(2:2*n:2), n, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, req(4))
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE)
    ok = .true.
    do i = 1, n
      ok = ok .and. b(2, i) == 100*peer + i .and. b(1, i) == -7 .and. b(4, i) == -7
      ok = ok .and. a(2*i) == 1000*peer + i .and. a(2*i-1) == 100*rank + i
    end do
    call check(ok, 'Isend/Irecv on a(1:2n:2), b(2,:), b(3,:), a(2:2n:2)')
  end if

  ! -- Ibcast into c(1:3n:3) from root 0 (the others untouched)
  c = -1
  if (rank == 0) c(1:3*n:3) = [(7*i, i = 1, n)]
  call MPI_Ibcast(c(1:3*n:3), n, MPI_INTEGER, 0, MPI_COMM_WORLD, req(1))
  call MPI_Wait(req(1), MPI_STATUS_IGNORE)
  ok = .true.
  do i = 1, n
    ok = ok .and. c(3*i-2) == 7*i .and. c(3*i-1) == -1 .and. c(3*i) == -1
  end do
  call check(ok, 'Ibcast on c(1:3n:3)')

  ! -- Iallreduce: section to section of the same stride; in place on a row
  d = -3
  d(1:2*n:2) = [(rank + i, i = 1, n)]
  a = -5
  r = -2d0
  r(2, :) = [(dble(rank*i), i = 1, n)]
  call MPI_Iallreduce(d(1:2*n:2), a(2:2*n:2), n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(1))
  call MPI_Iallreduce(MPI_IN_PLACE, r(2, :), n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  ok = .true.
  do i = 1, n
    ok = ok .and. a(2*i) == size*i + size*(size-1)/2 .and. a(2*i-1) == -5
    ok = ok .and. r(2, i) == dble((size-1)*i) .and. r(1, i) == -2d0 .and. r(3, i) == -2d0
  end do
  call check(ok, 'Iallreduce on d(1:2n:2) into a(2:2n:2), in place on r(2,:)')

  ! -- blocking: Allreduce and Sendrecv on sections
  a = -5
  call MPI_Allreduce(d(1:2*n:2), a(1:2*n:2), n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  ok = all(a(1:2*n:2) == [(size*i + size*(size-1)/2, i = 1, n)]) .and. all(a(2:2*n:2) == -5)
  call check(ok, 'Allreduce on sections')
  b = 0
  b(1, :) = [(rank*n + i, i = 1, n)]
  call MPI_Sendrecv(b(1, :), n, MPI_INTEGER, mod(rank+1, size), 3, &
                    b(4, :), n, MPI_INTEGER, mod(rank+size-1, size), 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  ok = all(b(4, :) == [(mod(rank+size-1, size)*n + i, i = 1, n)]) .and. all(b(2:3, :) == 0)
  call check(ok, 'Sendrecv on b(1,:) and b(4,:)')

  ! -- a 2-D block whose elements are not equally spaced: Irecv/Isend send count 1
  ! of a datatype of its first count elements (b(1:2,1:3) -> b(3:4,2:4), 5 of 6)
  b = 0
  b(1:2, 1:3) = reshape([(10*rank + i, i = 1, 6)], [2, 3])
  call MPI_Irecv(b(3:4, 2:4), 6, MPI_INTEGER, mod(rank+size-1, size), 5, MPI_COMM_WORLD, req(1))
  call MPI_Isend(b(1:2, 1:3), 5, MPI_INTEGER, mod(rank+1, size), 5, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  peer = mod(rank+size-1, size)
  ok = b(3, 2) == 10*peer + 1 .and. b(4, 2) == 10*peer + 2 .and. b(3, 3) == 10*peer + 3 .and. &
       b(4, 3) == 10*peer + 4 .and. b(3, 4) == 10*peer + 5 .and. b(4, 4) == 0 .and. &
       all(b(3:4, 1) == 0) .and. all(b(3:4, 5:) == 0) .and. all(b(1:2, 4:) == 0)
  call check(ok, 'Isend of 5 elements of b(1:2,1:3) into Irecv b(3:4,2:4)')

  ! -- a nonblocking reduction in place on a 2-D block not equally spaced
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)
  if (rank == 0) then
    b = reshape([(i, i = 1, 4*n)], [4, n])
    call MPI_Iallreduce(MPI_IN_PLACE, b(1:2, 1:3), 6, MPI_INTEGER, MPI_SUM, MPI_COMM_SELF, req(1), ierr)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE)
    call check(ierr == MPI_SUCCESS .and. all(b == reshape([(i, i = 1, 4*n)], [4, n])), &
               'Iallreduce in place on b(1:2,1:3)')
    ! not supported, an error: two such blocks of different shapes in a
    ! nonblocking reduction (one datatype cannot describe both), a
    ! contiguous array beside one
    call MPI_Iallreduce(b(1:2, 1:3), b(1:3, 5:6), 6, MPI_INTEGER, MPI_SUM, MPI_COMM_SELF, req(1), ierr)
    call check(ierr == MPI_ERR_BUFFER, 'Iallreduce on blocks of two shapes: MPI_ERR_BUFFER')
    call MPI_Iallreduce(d(1:6), b(1:2, 1:3), 6, MPI_INTEGER, MPI_SUM, MPI_COMM_SELF, req(1), ierr)
    call check(ierr == MPI_ERR_BUFFER, 'Iallreduce, contiguous sendbuf, block recvbuf: MPI_ERR_BUFFER')
    ! a count past the section's end
    call MPI_Recv(c(1:3*n:3), n+1, MPI_INTEGER, 0, 6, MPI_COMM_SELF, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_ERR_COUNT, 'count n+1 on a section of n: MPI_ERR_COUNT')
    ! a reversed section: a negative stride
    d = 0
    call MPI_Sendrecv([(i, i = 1, n)], n, MPI_INTEGER, 0, 7, d(2*n-1:1:-2), n, MPI_INTEGER, 0, 7, &
                      MPI_COMM_SELF, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. all(d(1:2*n:2) == [(n + 1 - i, i = 1, n)]) .and. &
               all(d(2:2*n:2) == 0), 'Sendrecv into d(2n-1:1:-2)')
    ! a section and a contiguous array sharing one datatype: a blocking
    ! call copies the section
    a = -1
    call MPI_Allreduce(d, a(1:2*n:2), n, MPI_INTEGER, MPI_SUM, MPI_COMM_SELF, ierr)
    call check(ierr == MPI_SUCCESS .and. all(a(1:2*n:2) == d(1:n)) .and. all(a(2:2*n:2) == -1), &
               'Allreduce, contiguous sendbuf, section recvbuf')
    ! a 2-D section whose elements are equally spaced is one stride: fine
    b = 0
    call MPI_Sendrecv(d(1:6), 6, MPI_INTEGER, 0, 4, b(1:4:2, 1:3), 6, MPI_INTEGER, 0, 4, &
                      MPI_COMM_SELF, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. all(b(1:4:2, 1:3) == reshape(d(1:6), [2, 3])) &
               .and. all(b(2:4:2, 1:3) == 0), 'Sendrecv into b(1:4:2,1:3)')
  end if
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  call finish('f08_sections')
end program f08_sections
