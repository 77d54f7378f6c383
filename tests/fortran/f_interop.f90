! f_interop: Fortran handles and a status handed to C (c_interop.c), which
! converts them with MPI_Comm_f2c, MPI_Type_f2c, MPI_Status_f2c/c2f and
! hands a new communicator back with MPI_Comm_c2f.
program f_interop
  use mpi
  use f_check
  implicit none
  integer :: ierr, rank, nproc, size, count, dup, bad, status(MPI_STATUS_SIZE), buf(3)
  integer, external :: cm_c_interop

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  buf = rank
  call MPI_Sendrecv(buf, 3, MPI_INTEGER, rank, 5, buf, 3, MPI_INTEGER, rank, 5, MPI_COMM_WORLD, status, ierr)
  bad = cm_c_interop(MPI_COMM_WORLD, MPI_INTEGER, status, size, count, dup)
  call check(bad == 0, 'the conversions in C')
  call check(size == nproc .and. count == 3, 'size and count seen from C')
  call check(status(MPI_TAG) == 4242, 'MPI_Status_c2f back to Fortran')
  call MPI_Comm_size(dup, size, ierr)
  call check(ierr == MPI_SUCCESS .and. size == nproc, 'a communicator made in C')
  call MPI_Comm_free(dup, ierr)
  call finish('f_interop')
end program f_interop
