! f_check: what the free-form test programs share: check() counts a failed
! condition (printing it with the rank), finish() sums the counts over
! MPI_COMM_WORLD, prints one line on rank 0, finalizes and stops with 1
! on any failure.  Only those are public: a program may use mpi_f08.
module f_check
  use mpi
  implicit none
  private
  public :: check, finish, errs
  integer, save :: errs = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: rank, ierr
    if (.not. ok) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      print *, 'rank', rank, ': ', what, ' wrong'
      errs = errs + 1
    end if
  end subroutine check

  subroutine finish(name)
    character(len=*), intent(in) :: name
    integer :: rank, ierr
    call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    if (rank == 0) print *, name, ': errors', errs
    call MPI_Finalize(ierr)
    if (errs /= 0) stop 1
  end subroutine finish
end module f_check
