! f_interop: Fortran handles and a status handed to C (c_interop.c), which
! converts them with MPI_Comm_f2c, MPI_Type_f2c, MPI_Status_f2c/c2f and
! hands a new communicator back with MPI_Comm_c2f; the Fortran
! MPI_STATUS(ES)_IGNORE of use mpi and use mpi_f08 seen from C as
! MPI_F_STATUS(ES)_IGNORE and MPI_F08_STATUS_IGNORE (not to be converted).
program f_interop
  use mpi
  use f_check
  implicit none
  integer :: ierr, rank, nproc, size, count, dup, bad, status(MPI_STATUS_SIZE), buf(3)
  integer, external :: cm_c_interop, cm_c_status_ignore

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
  call check(cm_c_status_ignore(MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, status) == 0, &
             'MPI_F_STATUS(ES)_IGNORE in C, not to be converted')
  call check(f08_ignore() == 0, 'MPI_F08_STATUS(ES)_IGNORE in C')
  call finish('f_interop')
contains
  ! mpi_f08's MPI_STATUS(ES)_IGNORE (TYPE(MPI_Status)) handed to C
  integer function f08_ignore()
    use mpi_f08, only : MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE
    integer, external :: cm_c_f08_ignore
    f08_ignore = cm_c_f08_ignore(MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE)
  end function f08_ignore
end program f_interop
