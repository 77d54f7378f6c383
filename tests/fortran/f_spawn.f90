! f_spawn: MPI_Comm_spawn and MPI_Comm_spawn_multiple from Fortran (use
! mpi): the parents spawn two copies of this program with the argument list
! ('one', 'two', then a blank element that ends it), then two more through
! spawn_multiple (one argument list per row of ARRAY_OF_ARGV, the second
! one longer); each child
! checks its command line and sends 10 * (its argument count) + its rank
! to the parents' root over the intercommunicator; the root checks both
! and the error codes.
program f_spawn
  use mpi
  use f_check
  implicit none
  integer :: ierr, rank, parent, inter, val, errcodes(2)
  character(len=256) :: self, arg1, arg2, cmds(2)
  character(len=8) :: argv(3), argvs(2, 4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_get_parent(parent, ierr)
  if (parent /= MPI_COMM_NULL) then
    call get_command_argument(1, arg1)
    call get_command_argument(2, arg2)
    val = -1
    if (arg1 == 'one' .and. arg2 == 'two') val = 10 * command_argument_count() + rank
    call MPI_Send(val, 1, MPI_INTEGER, 0, 1, parent, ierr)
    call MPI_Comm_disconnect(parent, ierr)
    call MPI_Finalize(ierr)
    stop
  end if
  call get_command_argument(0, self)
  argv(1) = 'one'
  argv(2) = 'two'
  argv(3) = ' '
  errcodes = -1
  call MPI_Comm_spawn(self, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errcodes, ierr)
  call check(ierr == MPI_SUCCESS .and. inter /= MPI_COMM_NULL, 'Comm_spawn')
  call check(all(errcodes == MPI_SUCCESS), 'array_of_errcodes')
  call collect(inter, 0, 'Comm_spawn')

  ! the same two children through MPI_Comm_spawn_multiple: two commands of
  ! one process each, ARRAY_OF_ARGV(2, 3) (row i: command i's list)
  cmds = self
  argvs(:, 1) = 'one'
  argvs(:, 2) = 'two'
  argvs(1, 3) = ' '
  argvs(2, 3) = 'three'
  argvs(:, 4) = ' '
  errcodes = -1
  call MPI_Comm_spawn_multiple(2, cmds, argvs, (/ 1, 1 /), (/ MPI_INFO_NULL, MPI_INFO_NULL /), 0, &
                               MPI_COMM_WORLD, inter, errcodes, ierr)
  call check(ierr == MPI_SUCCESS .and. all(errcodes == MPI_SUCCESS), 'Comm_spawn_multiple')
  call collect(inter, 1, 'Comm_spawn_multiple')
  call finish('f_spawn')
contains
  ! the parents' root receives one value from each of the two children;
  ! child r has 2 + r * more arguments
  subroutine collect(inter, more, what)
    integer, intent(inout) :: inter
    integer, intent(in) :: more
    character(len=*), intent(in) :: what
    integer :: i, val, seen, status(MPI_STATUS_SIZE), ierr
    if (rank == 0) then
      seen = 0
      do i = 1, 2
        call MPI_Recv(val, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, inter, status, ierr)
        call check(val == 10 * (2 + more * status(MPI_SOURCE)) + status(MPI_SOURCE), &
                   what // ': a child''s command line')
        seen = seen + status(MPI_SOURCE) + 1
      end do
      call check(seen == 3, what // ': both children')
    end if
    call MPI_Comm_disconnect(inter, ierr)
  end subroutine collect
end program f_spawn
