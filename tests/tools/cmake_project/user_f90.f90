! user_f90.f90 -- use mpi, built through MPI::MPI_Fortran.
program user_f90
  use mpi
  implicit none
  integer :: ierr, rank, nproc, one, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  one = 1
  call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total == nproc) write (*, '(a,i0,a)') 'user_f90: ', nproc, ' ranks ok'
  call MPI_Finalize(ierr)
  if (total /= nproc) stop 1
end program user_f90
