! user_f77.f -- fixed form, include 'mpif.h', built through MPI::MPI_Fortran.
      program user_f77
      implicit none
      include 'mpif.h'
      integer ierr, rank, nproc, one, total
      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
      one = 1
      call mpi_allreduce(one, total, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. total .eq. nproc)
     &    write (*, '(a,i0,a)') 'user_f77: ', nproc, ' ranks ok'
      call mpi_finalize(ierr)
      if (total .ne. nproc) stop 1
      end
