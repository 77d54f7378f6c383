! f_abi: the MPI-5.0 ABI's Fortran calls seen from Fortran (use mpi):
! libmpifort told libmpi gfortran's .TRUE./.FALSE. and sizes when it was
! loaded (MPI_Abi_get_fortran_booleans/_info, before MPI_Init too), a second
! MPI_Abi_set_fortran_info is MPI_ERR_ABI, a LOGICAL size of 3 MPI_ERR_ARG.
program f_abi
  use mpi
  use f_check
  implicit none
  integer :: ierr, info, cls, vlen
  logical :: t, f, is_set, flag
  integer(kind=1) :: t1, f1
  character(len=16) :: val

  t = .false.
  f = .true.
  call MPI_Abi_get_fortran_booleans(4, t, f, is_set, ierr)
  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS .and. is_set .and. t .and. .not. f, 'booleans (4 bytes) before MPI_Init')
  call MPI_Abi_get_fortran_booleans(1, t1, f1, is_set, ierr)
  call check(is_set .and. t1 == 1 .and. f1 == 0, 'booleans (1 byte)')
  call MPI_Abi_get_fortran_info(info, ierr)
  call check(info /= MPI_INFO_NULL, 'MPI_Abi_get_fortran_info gives an info')
  if (info /= MPI_INFO_NULL) then
    vlen = len(val)
    call MPI_Info_get_string(info, 'mpi_logical_size', vlen, val, flag, ierr)
    call check(flag .and. val == '4', 'mpi_logical_size')
    vlen = len(val)
    call MPI_Info_get_string(info, 'mpi_double_precision_size', vlen, val, flag, ierr)
    call check(flag .and. val == '8', 'mpi_double_precision_size')
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
    call MPI_Abi_set_fortran_info(info, ierr)
    call MPI_Error_class(ierr, cls, ierr)
    call check(cls == MPI_ERR_ABI, 'a second MPI_Abi_set_fortran_info is MPI_ERR_ABI')
    call MPI_Info_free(info, ierr)
  end if
  call MPI_Abi_set_fortran_booleans(3, t, f, ierr)
  call MPI_Error_class(ierr, cls, ierr)
  call check(cls == MPI_ERR_ARG, 'logical_size 3 is MPI_ERR_ARG')
  call finish('f_abi')
end program f_abi
