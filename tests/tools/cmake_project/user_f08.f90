! user_f08.f90 -- use mpi_f08, built through MPI::MPI_Fortran.
program user_f08
  use mpi_f08
  implicit none
  integer :: rank, nproc, one, total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  one = 1
  call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == nproc) write (*, '(a,i0,a)') 'user_f08: ', nproc, ' ranks ok'
  call MPI_Finalize()
  if (total /= nproc) stop 1
end program user_f08
