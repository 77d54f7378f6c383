! f08_pingpong [ITERS [ROUNDS]]: the cost of the Fortran bindings.  8-byte
! ping-pong between ranks 0 and 1 through use mpi_f08, through use mpi
! (the mpif.h names), and from C (pingpong_c.c), in turns in one job;
! rank 0 prints each one's best one-way latency over ROUNDS and the
! difference with C.  Then the same for 10*ITERS calls of MPI_Comm_rank on
! each rank, which times the binding alone, without a peer's noise
! (docs/fortran.md has the figures).
program f08_pingpong
  use mpi_f08, only : MPI_Init, MPI_Finalize, MPI_Comm_rank, MPI_Comm, MPI_Send, MPI_Recv, MPI_Barrier, &
                      MPI_Wtime, MPI_COMM_WORLD, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE, MPI_PROC_NULL
  implicit none
  integer :: rank, iters, rounds, r
  double precision :: t08, tf, tc, best08, bestf, bestc
  character(len=32) :: arg
  double precision, external :: cm_c_pingpong, mpif_pingpong, cm_c_rank_loop, mpif_rank_loop
  double precision, external :: cm_c_procnull_loop, mpif_procnull_loop

  iters = 100000
  rounds = 5
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) rounds
  end if
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  best08 = huge(1d0)
  bestf = huge(1d0)
  bestc = huge(1d0)
  do r = 1, rounds
    tc = cm_c_pingpong(iters)
    t08 = f08_round(iters)
    tf = mpif_pingpong(iters)
    best08 = min(best08, t08)
    bestf = min(bestf, tf)
    bestc = min(bestc, tc)
  end do
  if (rank == 0) then
    print '(a, i0, a, i0, a)', 'f08_pingpong: 8 bytes, ', iters, ' round trips, best of ', rounds, &
        ', one-way latency:'
    print '(a, f8.1, a)', '  C           ', bestc / iters / 2 * 1d9, ' ns'
    print '(a, f8.1, a, f6.1, a)', '  use mpi_f08 ', best08 / iters / 2 * 1d9, ' ns (', &
        (best08 - bestc) / iters / 2 * 1d9, ' ns more than C)'
    print '(a, f8.1, a, f6.1, a)', '  use mpi     ', bestf / iters / 2 * 1d9, ' ns (', &
        (bestf - bestc) / iters / 2 * 1d9, ' ns more than C)'
  end if
  call per_call('MPI_Comm_rank, per call:', cm_c_rank_loop, f08_rank_loop, mpif_rank_loop)
  ! a choice buffer (the TYPE(*), DIMENSION(..) path of mpi_f08), no peer
  call per_call('MPI_Send of 8 bytes to MPI_PROC_NULL, per call:', cm_c_procnull_loop, &
                f08_procnull_loop, mpif_procnull_loop)
  call MPI_Finalize()
contains
  ! The best of ROUNDS runs of 10*ITERS calls from C, use mpi_f08 and use mpi.
  subroutine per_call(title, c_loop, f08_loop, f_loop)
    character(len=*), intent(in) :: title
    double precision, external :: c_loop, f08_loop, f_loop
    double precision :: b08, bf, bc
    b08 = huge(1d0)
    bf = huge(1d0)
    bc = huge(1d0)
    do r = 1, rounds
      bc = min(bc, c_loop(10 * iters))
      b08 = min(b08, f08_loop(10 * iters))
      bf = min(bf, f_loop(10 * iters))
    end do
    if (rank == 0) then
      print '(a)', title
      print '(a, f8.2, a)', '  C           ', bc / iters / 10 * 1d9, ' ns'
      print '(a, f8.2, a, f6.2, a)', '  use mpi_f08 ', b08 / iters / 10 * 1d9, ' ns (', &
          (b08 - bc) / iters / 10 * 1d9, ' ns more than C)'
      print '(a, f8.2, a, f6.2, a)', '  use mpi     ', bf / iters / 10 * 1d9, ' ns (', &
          (bf - bc) / iters / 10 * 1d9, ' ns more than C)'
    end if
  end subroutine per_call

  double precision function f08_procnull_loop(n)
    integer, intent(in) :: n
    integer :: i
    double precision :: buf, t0
    buf = 0
    t0 = MPI_Wtime()
    do i = 1, n
      call MPI_Send(buf, 1, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 0, MPI_COMM_WORLD)
    end do
    f08_procnull_loop = MPI_Wtime() - t0
  end function f08_procnull_loop

  double precision function f08_rank_loop(n)
    integer, intent(in) :: n
    integer :: i, rk
    double precision :: t0
    type(MPI_Comm) :: comm
    comm = MPI_COMM_WORLD
    t0 = MPI_Wtime()
    do i = 1, n
      call MPI_Comm_rank(comm, rk)
    end do
    f08_rank_loop = MPI_Wtime() - t0
  end function f08_rank_loop

  double precision function f08_round(n)
    integer, intent(in) :: n
    integer :: i
    double precision :: buf, t0
    buf = 0
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, n
      if (rank == 0) then
        call MPI_Send(buf, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD)
        call MPI_Recv(buf, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else if (rank == 1) then
        call MPI_Recv(buf, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(buf, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD)
      end if
    end do
    f08_round = MPI_Wtime() - t0
  end function f08_round
end program f08_pingpong

! The same through use mpi (the mpif.h functions).
double precision function mpif_pingpong(n)
  use mpi
  implicit none
  integer, intent(in) :: n
  integer :: i, rank, ierr
  double precision :: buf, t0
  buf = 0
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t0 = MPI_Wtime()
  do i = 1, n
    if (rank == 0) then
      call MPI_Send(buf, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, ierr)
      call MPI_Recv(buf, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else if (rank == 1) then
      call MPI_Recv(buf, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(buf, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, ierr)
    end if
  end do
  mpif_pingpong = MPI_Wtime() - t0
end function mpif_pingpong

double precision function mpif_rank_loop(n)
  use mpi
  implicit none
  integer, intent(in) :: n
  integer :: i, rk, ierr
  double precision :: t0
  t0 = MPI_Wtime()
  do i = 1, n
    call MPI_Comm_rank(MPI_COMM_WORLD, rk, ierr)
  end do
  mpif_rank_loop = MPI_Wtime() - t0
end function mpif_rank_loop

double precision function mpif_procnull_loop(n)
  use mpi
  implicit none
  integer, intent(in) :: n
  integer :: i, ierr
  double precision :: buf, t0
  buf = 0
  t0 = MPI_Wtime()
  do i = 1, n
    call MPI_Send(buf, 1, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 0, MPI_COMM_WORLD, ierr)
  end do
  mpif_procnull_loop = MPI_Wtime() - t0
end function mpif_procnull_loop
