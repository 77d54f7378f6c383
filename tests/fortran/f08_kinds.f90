! f08_kinds: what mpi_f08 gives a program about its kinds.
! - The six _c forms a generic cannot hold beside the plain form
!   (MPI_Type_get_extent_c, MPI_Type_get_true_extent_c,
!   MPI_Type_create_resized_c, MPI_Type_get_envelope_c,
!   MPI_Type_get_contents_c, MPI_Op_create_c), called by their own names.
! - MPI_Type_create_f90_integer/real/complex against the compiler's own
!   SELECTED_INT_KIND / SELECTED_REAL_KIND for every range and precision a
!   program may ask (MPI_UNDEFINED standing for the one left out): the
!   type's size is the kind's storage size, MPI_ERR_ARG exactly when the
!   compiler has no such kind, the envelope is the F90 combiner with the
!   arguments as given, the same arguments give the same handle; values of
!   such kinds sent and reduced (MPI_SUM, MPI_MAX) through those types.
module f08_kinds_ops
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
contains
  ! a large-count user op (MPI_Op_create_c): inoutvec = invec + 2*inoutvec
  subroutine twice_add(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, (/ len /))
    call c_f_pointer(inoutvec, b, (/ len /))
    b = a + 2 * b
  end subroutine twice_add
end module f08_kinds_ops

program f08_kinds
  use mpi_f08
  use f08_kinds_ops
  use f_check
  use, intrinsic :: iso_fortran_env, only : real_kinds, integer_kinds
  implicit none
  ! the compiler's kinds as constants (repeated when it has fewer)
  integer, parameter :: nr = size(real_kinds), ni = size(integer_kinds)
  integer, parameter :: rk1 = real_kinds(1), rk2 = real_kinds(min(2, nr)), &
                        rk3 = real_kinds(min(3, nr)), rk4 = real_kinds(min(4, nr))
  integer, parameter :: ik1 = integer_kinds(1), ik2 = integer_kinds(min(2, ni)), ik3 = integer_kinds(min(3, ni)), &
                        ik4 = integer_kinds(min(4, ni)), ik5 = integer_kinds(min(5, ni))
  integer, parameter :: iks(5) = (/ ik1, ik2, ik3, ik4, ik5 /), rks(4) = (/ rk1, rk2, rk3, rk4 /)
  integer, parameter :: isz(5) = (/ storage_size(0_ik1), storage_size(0_ik2), storage_size(0_ik3), &
                                    storage_size(0_ik4), storage_size(0_ik5) /) / 8
  integer, parameter :: rsz(4) = (/ storage_size(0.0_rk1), storage_size(0.0_rk2), storage_size(0.0_rk3), &
                                    storage_size(0.0_rk4) /) / 8
  integer, parameter :: dk = selected_real_kind(12, 200), qk = selected_int_kind(15)
  integer :: rank, nproc, ierr, ierc, i, p, r, k, ni_, na_, nc_, nd_, comb, ints(2), bad
  integer(kind=MPI_COUNT_KIND) :: lb, ext, tlb, text, cni, cna, cnc, cnd, cbig(2)
  integer(kind=MPI_ADDRESS_KIND) :: alb, aext, aa(2)
  type(MPI_Datatype) :: t, t2, rt, dtypes(1)
  type(MPI_Op) :: op
  real(kind=dk) :: x(3), y(3)
  integer(kind=qk) :: n(2), m(2)
  complex(kind=dk) :: z(2), w(2)
  integer :: v(4), u(4)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)

  ! ---- the six _c forms by their names
  call MPI_Type_vector(3, 2, 5, MPI_INTEGER, t)
  call MPI_Type_get_extent_c(t, lb, ext, ierr)
  call MPI_Type_get_extent(t, alb, aext)
  call check(ierr == 0 .and. lb == 0 .and. ext == 48 .and. aext == ext, 'MPI_Type_get_extent_c')
  call MPI_Type_create_resized_c(t, -4_MPI_COUNT_KIND, 100_MPI_COUNT_KIND, t2, ierr)
  call MPI_Type_get_extent_c(t2, lb, ext)
  call MPI_Type_get_true_extent_c(t2, tlb, text, ierr)
  call check(ierr == 0 .and. lb == -4 .and. ext == 100 .and. tlb == 0 .and. text == 48, &
             'MPI_Type_create_resized_c, MPI_Type_get_true_extent_c')
  call MPI_Type_get_envelope_c(t2, cni, cna, cnc, cnd, comb, ierr)
  call check(ierr == 0 .and. comb == MPI_COMBINER_RESIZED .and. cni == 0 .and. cna + cnc == 2 .and. cnd == 1, &
             'MPI_Type_get_envelope_c')
  ! lb and extent come back as addresses or as large counts (the envelope says which)
  call MPI_Type_get_contents_c(t2, 0_MPI_COUNT_KIND, cna, cnc, 1_MPI_COUNT_KIND, ints, aa, cbig, dtypes, ierr)
  if (cna == 2) cbig = aa
  call check(ierr == 0 .and. cbig(1) == -4 .and. cbig(2) == 100 .and. dtypes(1) == t, 'MPI_Type_get_contents_c')
  call MPI_Type_free(dtypes(1))
  call MPI_Type_free(t2)
  call MPI_Type_free(t)
  call MPI_Op_create_c(twice_add, .false., op, ierr)
  v = rank + 1
  call MPI_Reduce(v, u, 4, MPI_INTEGER, op, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then   ! rank order: acc = v(i) + 2*acc, from the last rank down
    k = 0
    do i = nproc, 1, -1
      k = i + 2 * k
    end do
    call check(ierr == 0 .and. all(u == k), 'MPI_Op_create_c (a non-commutative large-count op)')
  end if
  call MPI_Op_free(op)

  ! ---- MPI_Type_create_f90_integer against SELECTED_INT_KIND
  do r = -2, 45
    call MPI_Type_create_f90_integer(r, t, ierr)
    k = selected_int_kind(r)
    if (k < 0) then
      call check(ierr == MPI_ERR_ARG, 'MPI_Type_create_f90_integer without a kind')
      cycle
    end if
    call check(ierr == MPI_SUCCESS .and. type_size(t) == kind_size(k, iks, isz), 'MPI_Type_create_f90_integer size')
    call MPI_Type_get_envelope(t, ni_, na_, nd_, comb)
    call MPI_Type_get_contents(t, 1, 0, 0, ints, aa, dtypes)
    call check(comb == MPI_COMBINER_F90_INTEGER .and. ni_ == 1 .and. ints(1) == r, 'F90_INTEGER envelope')
    call MPI_Type_create_f90_integer(r, t2)
    call check(t2 == t, 'MPI_Type_create_f90_integer: the same handle again')
  end do

  ! ---- MPI_Type_create_f90_real/complex against SELECTED_REAL_KIND
  bad = 0
  do p = -1, 40
    do i = -1, 100
      r = i * 50    ! 0 .. 5000 and the one left out (MPI_UNDEFINED)
      if (i == -1) r = MPI_UNDEFINED
      if (p == -1 .and. i == -1) cycle
      if (p == -1) then
        k = selected_real_kind(r=r)
        call MPI_Type_create_f90_real(MPI_UNDEFINED, r, t, ierr)
        call MPI_Type_create_f90_complex(MPI_UNDEFINED, r, rt, ierc)
      else if (i == -1) then
        k = selected_real_kind(p=p)
        call MPI_Type_create_f90_real(p, MPI_UNDEFINED, t, ierr)
        call MPI_Type_create_f90_complex(p, MPI_UNDEFINED, rt, ierc)
      else
        k = selected_real_kind(p, r)
        call MPI_Type_create_f90_real(p, r, t, ierr)
        call MPI_Type_create_f90_complex(p, r, rt, ierc)
      end if
      if (k < 0) then
        if (ierr /= MPI_ERR_ARG .or. ierc /= MPI_ERR_ARG) bad = bad + 1
        if (ierr /= MPI_ERR_ARG .and. bad == 1) print *, 'f90_real: p', p, 'r', r, 'gives a type, the compiler none'
        cycle
      end if
      if (ierr /= 0 .or. ierc /= 0 .or. type_size(t) /= kind_size(k, rks, rsz) .or. &
          type_size(rt) /= 2 * kind_size(k, rks, rsz)) then
        bad = bad + 1
        if (bad == 1) print *, 'f90_real: p', p, 'r', r, 'kind', k, 'size', type_size(t), 'error', ierr
        cycle
      end if
      call MPI_Type_get_envelope(rt, ni_, na_, nd_, comb)
      call MPI_Type_get_contents(rt, 2, 0, 0, ints, aa, dtypes)
      if (comb /= MPI_COMBINER_F90_COMPLEX .or. ni_ /= 2 .or. ints(1) /= merge(MPI_UNDEFINED, p, p == -1) &
          .or. ints(2) /= r) bad = bad + 1
    end do
  end do
  call check(bad == 0, 'MPI_Type_create_f90_real/complex against SELECTED_REAL_KIND')
  call MPI_Type_create_f90_real(12, 200, t)
  call MPI_Type_get_envelope(t, ni_, na_, nd_, comb)
  call check(comb == MPI_COMBINER_F90_REAL, 'F90_REAL envelope')
  call MPI_Type_free(t, ierr)
  call check(ierr /= MPI_SUCCESS, 'MPI_Type_free of an f90 type refused')

  ! ---- values of those kinds through those types
  call MPI_Type_create_f90_real(12, 200, t)
  call MPI_Type_create_f90_complex(12, 200, rt)
  call MPI_Type_create_f90_integer(15, t2)
  x = (/ 1.5_dk, -2.25_dk, 1.0e100_dk * (rank + 1) /)
  call MPI_Allreduce(x, y, 3, t, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == 0 .and. y(1) == 1.5_dk * nproc .and. y(2) == -2.25_dk * nproc .and. &
             abs(y(3) - 1.0e100_dk * nproc * (nproc + 1) / 2) < 1.0e88_dk, 'MPI_SUM on an f90 real')
  n = (/ 3000000000_qk * (rank + 1), -int(rank, qk) /)
  call MPI_Allreduce(n, m, 2, t2, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(ierr == 0 .and. m(1) == 3000000000_qk * nproc .and. m(2) == 0, 'MPI_MAX on an f90 integer')
  z = (/ (1.0_dk, 2.0_dk), cmplx(rank, -rank, kind=dk) /)
  call MPI_Allreduce(z, w, 2, rt, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == 0 .and. w(1) == cmplx(nproc, 2 * nproc, kind=dk) .and. &
             w(2) == cmplx(nproc * (nproc - 1) / 2, -nproc * (nproc - 1) / 2, kind=dk), 'MPI_SUM on an f90 complex')
  if (rank == 0) x = (/ 7.0_dk, 8.0_dk, 9.0_dk /)
  call MPI_Bcast(x, 3, t, 0, MPI_COMM_WORLD, ierr)
  call check(ierr == 0 .and. all(x == (/ 7.0_dk, 8.0_dk, 9.0_dk /)), 'MPI_Bcast of an f90 real')
  call finish('f08_kinds')
contains
  integer function type_size(tt)
    type(MPI_Datatype), intent(in) :: tt
    call MPI_Type_size(tt, type_size)
  end function type_size

  ! the storage size in bytes of kind kk of the kinds ks (sizes sz)
  integer function kind_size(kk, ks, sz)
    integer, intent(in) :: kk, ks(:), sz(:)
    kind_size = -1
    if (any(ks == kk)) kind_size = sz(findloc(ks, kk, 1))
  end function kind_size
end program f08_kinds
