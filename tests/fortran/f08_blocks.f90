! f08_blocks: 2-D array sections whose elements are not equally spaced
! (A(1:10:3, 2:8:2): 4 x 4 elements, 3 apart down a column and 20 across)
! in reductions and v-collectives through use mpi_f08, 1..5 ranks.
! The standard's rule: the call behaves as if the section were copied into
! a contiguous array.  Each call is checked element by element, and every
! element outside the sections must keep its value.
! - MPI_Allreduce section to section, section to a contiguous array, a
!   contiguous array to a section, in place on a section (a blocking call
!   copies the section);
! - MPI_Gatherv of the first rank+1 elements of each rank's section into a
!   section of another shape at the root, with gaps between the blocks;
!   MPI_Scatterv back from that section;
! - MPI_Ireduce (MAX) section to a section of the same shape, and in place
!   at the root, nothing read until the wait (one datatype over the block).
program f08_blocks
  use mpi_f08
  use f_check
  implicit none
  integer, parameter :: ns = 16      ! elements of A(1:10:3, 2:8:2)
  integer :: rank, nproc, i, j, r, ierr, tot
  integer, asynchronous :: a(10, 8), b(10, 8), g(20, 8), c(ns)
  integer :: want(ns), a0(10, 8), g0(20, 8), g2(20, 8), counts(5), displs(5)
  type(MPI_Request) :: req
  logical :: ok

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  a0 = reshape([(1000 * rank + i, i = 1, 80)], [10, 8])

  ! -- Allreduce, section to section
  a = a0
  b = -1
  call MPI_Allreduce(a(1:10:3, 2:8:2), b(1:10:3, 2:8:2), ns, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  want = sum_over_ranks(pack_block(a0(1:10:3, 2:8:2)) - 1000 * rank)
  call check(ierr == MPI_SUCCESS .and. all(pack_block(b(1:10:3, 2:8:2)) == want) .and. &
             count(b == -1) == 80 - ns .and. all(a == a0), 'Allreduce A(1:10:3,2:8:2) -> B(1:10:3,2:8:2)')
  ! -- section to a contiguous array, and back
  c = -1
  call MPI_Allreduce(a(1:10:3, 2:8:2), c, ns, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(c == want), 'Allreduce section -> contiguous')
  b = -1
  call MPI_Allreduce(c, b(1:10:3, 2:8:2), ns, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(pack_block(b(1:10:3, 2:8:2)) == want) .and. count(b == -1) == 80 - ns, &
             'Allreduce contiguous -> section')
  ! -- in place
  a = a0
  call MPI_Allreduce(MPI_IN_PLACE, a(1:10:3, 2:8:2), ns, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  b = a0
  b(1:10:3, 2:8:2) = a(1:10:3, 2:8:2)
  call check(ierr == MPI_SUCCESS .and. all(pack_block(a(1:10:3, 2:8:2)) == want) .and. all(a == b), &
             'Allreduce in place on A(1:10:3,2:8:2)')

  ! -- Gatherv: rank r sends its first r+1 elements; at the root block r
  ! starts at element r(r+1)/2 + r of g(2:20:3, 1:8:2) (7 x 4 = 28 elements)
  tot = 0
  do r = 0, nproc - 1
    counts(r + 1) = r + 1
    displs(r + 1) = r * (r + 1) / 2 + r
  end do
  a = a0
  g0 = reshape([(-i, i = 1, 160)], [20, 8])
  g = g0
  call MPI_Gatherv(a(1:10:3, 2:8:2), rank + 1, MPI_INTEGER, g(2:20:3, 1:8:2), counts, displs, MPI_INTEGER, &
                   0, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'Gatherv into g(2:20:3,1:8:2): the call')
  if (rank == 0) then
    b = 0
    ok = .true.
    do r = 0, nproc - 1
      do j = 1, r + 1     ! element j of rank r's section lands at displs + j of the root's
        ok = ok .and. elem(g(2:20:3, 1:8:2), displs(r + 1) + j) == block_of(r, j)
      end do
    end do
    g0(2:20:3, 1:8:2) = g(2:20:3, 1:8:2)    ! what is left must be untouched
    do r = 0, nproc - 1
      do j = displs(r + 1) + 1, displs(r + 1) + counts(r + 1)
        call set_elem(g0, j, -999)
      end do
    end do
    g2 = g
    where (g0 == -999) g2 = -999      ! the gathered elements, checked above
    call check(ok .and. all(g2 == g0), 'Gatherv into g(2:20:3,1:8:2) with gaps')
  end if
  ! -- Scatterv back from that section into each rank's B(1:10:3, 2:8:2)
  b = -1
  call MPI_Scatterv(g(2:20:3, 1:8:2), counts, displs, MPI_INTEGER, b(1:10:3, 2:8:2), rank + 1, MPI_INTEGER, &
                    0, MPI_COMM_WORLD, ierr)
  ok = ierr == MPI_SUCCESS .and. count(b == -1) == 80 - (rank + 1)
  do j = 1, rank + 1
    ok = ok .and. elem(b(1:10:3, 2:8:2), j) == block_of(rank, j)
  end do
  call check(ok, 'Scatterv from g(2:20:3,1:8:2) into B(1:10:3,2:8:2)')

  ! -- Ireduce (MAX), section to a section of the same shape
  a = a0
  b = -1
  call MPI_Ireduce(a(1:10:3, 2:8:2), b(1:10:3, 2:8:2), ns, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, req, ierr)
  call check(ierr == MPI_SUCCESS, 'Ireduce A(1:10:3,2:8:2) -> B(1:10:3,2:8:2): the call')
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (rank == 0) then
    want = pack_block(a0(1:10:3, 2:8:2)) + 1000 * (nproc - 1)
    call check(all(pack_block(b(1:10:3, 2:8:2)) == want) .and. count(b == -1) == 80 - ns, &
               'Ireduce A(1:10:3,2:8:2) -> B(1:10:3,2:8:2)')
  end if
  ! -- Ireduce in place at the root
  if (rank == 0) then
    call MPI_Ireduce(MPI_IN_PLACE, a(1:10:3, 2:8:2), ns, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, req)
  else
    call MPI_Ireduce(a(1:10:3, 2:8:2), b(1:10:3, 2:8:2), ns, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, req)
  end if
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (rank == 0) then
    b = a0
    b(1:10:3, 2:8:2) = a(1:10:3, 2:8:2)
    call check(all(pack_block(a(1:10:3, 2:8:2)) == sum_over_ranks(pack_block(a0(1:10:3, 2:8:2)))) &
               .and. all(a == b), 'Ireduce in place on A(1:10:3,2:8:2)')
  end if
  call finish('f08_blocks')
contains
  ! a 2-D section's elements in array element order
  function pack_block(s) result(v)
    integer, intent(in) :: s(:, :)
    integer :: v(size(s))
    v = reshape(s, [size(s)])
  end function pack_block

  ! the sum over the ranks of v + 1000*rank (each rank's a0 is that)
  function sum_over_ranks(v) result(w)
    integer, intent(in) :: v(:)
    integer :: w(size(v))
    w = nproc * v + 1000 * nproc * (nproc - 1) / 2
  end function sum_over_ranks

  ! element k (from 1, array element order) of a 2-D section
  integer function elem(s, k)
    integer, intent(in) :: s(:, :), k
    integer :: v(size(s))
    v = reshape(s, [size(s)])
    elem = v(k)
  end function elem

  ! element j of rank r's A(1:10:3, 2:8:2) (its a0)
  integer function block_of(r, j)
    integer, intent(in) :: r, j
    integer :: full(10, 8)
    full = reshape([(1000 * r + i, i = 1, 80)], [10, 8])
    block_of = elem(full(1:10:3, 2:8:2), j)
  end function block_of

  ! element j of g0's section g0(2:20:3, 1:8:2) set to v
  subroutine set_elem(gg, j, v)
    integer, intent(inout) :: gg(20, 8)
    integer, intent(in) :: j, v
    gg(2 + 3 * mod(j - 1, 7), 1 + 2 * ((j - 1) / 7)) = v
  end subroutine set_elem

end program f08_blocks
