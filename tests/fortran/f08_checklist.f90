! f08_checklist: the Fortran side of the standard (issue 36 item 3) tried
! from a program through use mpi_f08, one section per bullet:
! - the named sized types (MPI_INTEGER1..16, MPI_REAL4..16, MPI_COMPLEX8..32
!   and the default ones) with every reduction that applies to them: MAX,
!   MIN, SUM, PROD, BAND, BOR, BXOR on integers, MAX, MIN, SUM, PROD on
!   reals, SUM, PROD on complexes (LOGICAL and the pair types are in
!   f_coll.f90);
! - MPI_SIZEOF of each kind, against MPI_Type_size of its named type;
! - callbacks written in Fortran: a type attribute's copy and delete, a
!   window's error handler;
! - sentinels: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (a distributed graph);
! - handle and status conversion between use mpi and use mpi_f08: an
!   INTEGER handle as %MPI_VAL, MPI_Status_f2f08 / MPI_Status_f082f.
! (gfortran has no REAL(2), so MPI_REAL2 and MPI_COMPLEX4 are not tried.)
module f08_checklist_cb
  use mpi_f08
  implicit none
  integer, save :: copies = 0, deletes = 0, win_errors = 0, last_win_error = 0
contains
  subroutine type_copy(oldtype, keyval, extra, valin, valout, flag, ierror)
    type(MPI_Datatype) :: oldtype
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    copies = copies + 1
    valout = valin + extra
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine type_copy

  subroutine type_delete(datatype, keyval, val, extra, ierror)
    type(MPI_Datatype) :: datatype
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine type_delete

  subroutine win_error(win, code)
    type(MPI_Win) :: win
    integer :: code
    win_errors = win_errors + 1
    last_win_error = code
  end subroutine win_error
end module f08_checklist_cb

program f08_checklist
  use mpi_f08
  use f08_checklist_cb
  use f_check
  implicit none
  integer, parameter :: q = selected_real_kind(30)
  integer :: rank, nproc, i, k, ierr, sz, tsz, kv, nin, nout, ints(2)
  integer(kind=MPI_ADDRESS_KIND) :: val
  logical :: flag, ok
  type(MPI_Op) :: ops(7)
  character(len=4) :: opname(7) = ['MAX ', 'MIN ', 'SUM ', 'PROD', 'BAND', 'BOR ', 'BXOR']
  integer(16) :: iv(3), iwant(3), igot(3)
  real(q) :: rv(3), rwant(3), rgot(3)
  complex(q) :: cv(2), cwant(2), cgot(2)
  type(MPI_Datatype) :: t, t2, itypes(6), rtypes(5), ctypes(4)
  type(MPI_Win) :: win
  type(MPI_Errhandler) :: eh
  type(MPI_Comm) :: graph
  type(MPI_Status) :: st08
  integer :: fst(MPI_STATUS_SIZE), fcomm, buf(4), srcs(1), dsts(1)
  integer(1) :: i1
  integer(2) :: i2
  integer(4) :: i4
  integer(8) :: i8
  integer(16) :: i16
  real(4) :: r4
  real(8) :: r8
  real(q) :: r16
  complex(4) :: c8
  complex(8) :: c16
  complex(q) :: c32
  character :: ch
  logical :: lg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  ops = [MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR]

  ! ---- integers: every kind, every op
  itypes = [MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER16, MPI_INTEGER]
  do k = 1, size(itypes)
    do i = 1, size(ops)
      iv = int(vals(rank, i, .true.), 16)
      iwant = int(expect(i, .true.), 16)
      call int_reduce(k, ops(i), iv, igot, ierr)
      call check(ierr == MPI_SUCCESS .and. all(igot == iwant), 'integer kind #' // char(48 + k) // ' ' // opname(i))
    end do
  end do
  ! ---- reals
  rtypes = [MPI_REAL4, MPI_REAL8, MPI_REAL16, MPI_REAL, MPI_DOUBLE_PRECISION]
  do k = 1, size(rtypes)
    do i = 1, 4
      rv = vals(rank, i, .false.)
      rwant = expect(i, .false.)
      call real_reduce(k, ops(i), rv, rgot, ierr)
      call check(ierr == MPI_SUCCESS .and. all(rgot == rwant), 'real kind #' // char(48 + k) // ' ' // opname(i))
    end do
  end do
  ! ---- complexes
  ctypes = [MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32, MPI_DOUBLE_COMPLEX]
  do k = 1, size(ctypes)
    do i = 3, 4
      cv = [cmplx(rank + 1, -rank, q), cmplx(0.5_q, mod(rank, 2), q)]
      cwant = cplx_expect(i, cv)
      call cplx_reduce(k, ops(i), cv, cgot, ierr)
      call check(ierr == MPI_SUCCESS .and. all(cgot == cwant), 'complex kind #' // char(48 + k) // ' ' // opname(i))
    end do
  end do
  ! ---- MPI_SIZEOF against the named types
  ok = .true.
  call MPI_Sizeof(i1, sz); call MPI_Type_size(MPI_INTEGER1, tsz); ok = ok .and. sz == 1 .and. tsz == sz
  call MPI_Sizeof(i2, sz); call MPI_Type_size(MPI_INTEGER2, tsz); ok = ok .and. sz == 2 .and. tsz == sz
  call MPI_Sizeof(i4, sz); call MPI_Type_size(MPI_INTEGER4, tsz); ok = ok .and. sz == 4 .and. tsz == sz
  call MPI_Sizeof(i8, sz); call MPI_Type_size(MPI_INTEGER8, tsz); ok = ok .and. sz == 8 .and. tsz == sz
  call MPI_Sizeof(i16, sz); call MPI_Type_size(MPI_INTEGER16, tsz); ok = ok .and. sz == 16 .and. tsz == sz
  call MPI_Sizeof(r4, sz); call MPI_Type_size(MPI_REAL4, tsz); ok = ok .and. sz == 4 .and. tsz == sz
  call MPI_Sizeof(r8, sz); call MPI_Type_size(MPI_REAL8, tsz); ok = ok .and. sz == 8 .and. tsz == sz
  call MPI_Sizeof(r16, sz); call MPI_Type_size(MPI_REAL16, tsz); ok = ok .and. sz == 16 .and. tsz == sz
  call MPI_Sizeof(c8, sz); call MPI_Type_size(MPI_COMPLEX8, tsz); ok = ok .and. sz == 8 .and. tsz == sz
  call MPI_Sizeof(c16, sz); call MPI_Type_size(MPI_COMPLEX16, tsz); ok = ok .and. sz == 16 .and. tsz == sz
  call MPI_Sizeof(c32, sz); call MPI_Type_size(MPI_COMPLEX32, tsz); ok = ok .and. sz == 32 .and. tsz == sz
  call MPI_Sizeof(ch, sz); call MPI_Type_size(MPI_CHARACTER, tsz); ok = ok .and. sz == 1 .and. tsz == sz
  call MPI_Sizeof(lg, sz); call MPI_Type_size(MPI_LOGICAL, tsz); ok = ok .and. sz == 4 .and. tsz == sz
  call MPI_Sizeof([r8, r8, r8], sz, ierr); ok = ok .and. sz == 8 .and. ierr == MPI_SUCCESS
  call check(ok, 'MPI_SIZEOF against MPI_Type_size')

  ! ---- a type attribute's callbacks in Fortran
  call MPI_Type_create_keyval(type_copy, type_delete, kv, 100_MPI_ADDRESS_KIND)
  call MPI_Type_contiguous(2, MPI_INTEGER, t)
  call MPI_Type_set_attr(t, kv, 7_MPI_ADDRESS_KIND)
  call MPI_Type_dup(t, t2)
  call MPI_Type_get_attr(t2, kv, val, flag)
  call check(flag .and. val == 107 .and. copies == 1, 'a type attribute copied by a Fortran callback')
  call MPI_Type_free(t2)
  call MPI_Type_free(t)
  call check(deletes == 2, 'a type attribute deleted by a Fortran callback')
  call MPI_Type_free_keyval(kv)

  ! ---- a window's error handler in Fortran
  call MPI_Win_create(buf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_create_errhandler(win_error, eh)
  call MPI_Win_set_errhandler(win, eh)
  call MPI_Win_fence(0, win)
  call MPI_Put(buf, 1, MPI_INTEGER, nproc + 5, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  call check(ierr /= MPI_SUCCESS .and. win_errors == 1 .and. last_win_error == ierr, &
             'a window error handler written in Fortran')
  call MPI_Win_fence(0, win)
  call MPI_Win_free(win)
  call MPI_Errhandler_free(eh)

  ! ---- MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY: a ring as a distributed graph
  srcs(1) = mod(rank + nproc - 1, nproc)
  dsts(1) = mod(rank + 1, nproc)
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., graph, ierr)
  call MPI_Dist_graph_neighbors_count(graph, nin, nout, flag)
  call check(ierr == MPI_SUCCESS .and. nin == 1 .and. nout == 1 .and. .not. flag, 'MPI_UNWEIGHTED')
  call MPI_Comm_free(graph)
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 0, srcs, ints, dsts, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, .false., &
                             graph, ierr)
  call MPI_Dist_graph_neighbors_count(graph, nin, nout, flag)
  call check(ierr == MPI_SUCCESS .and. nin == 0 .and. nout == 0 .and. flag, 'MPI_WEIGHTS_EMPTY')
  call MPI_Comm_free(graph)

  ! ---- use mpi's INTEGER handles and statuses in use mpi_f08
  fcomm = MPI_COMM_WORLD%MPI_VAL
  t%MPI_VAL = MPI_INTEGER%MPI_VAL
  call MPI_Sendrecv([rank, rank], 2, t, rank, 3, buf, 2, MPI_INTEGER, rank, 3, MPI_Comm(fcomm), st08, ierr)
  call MPI_Status_f082f(st08, fst, ierr)
  call check(ierr == MPI_SUCCESS .and. fst(MPI_SOURCE) == rank .and. fst(MPI_TAG) == 3, 'MPI_Status_f082f')
  fst(MPI_TAG) = 99
  call MPI_Status_f2f08(fst, st08, ierr)
  call MPI_Get_count(st08, MPI_INTEGER, sz)
  call check(ierr == MPI_SUCCESS .and. st08%MPI_TAG == 99 .and. st08%MPI_SOURCE == rank .and. sz == 2, &
             'MPI_Status_f2f08')
  call finish('f08_checklist')
contains
  ! rank r's values for op i: integers (isint) or reals
  function vals(r, i, isint) result(u)
    integer, intent(in) :: r, i
    logical, intent(in) :: isint
    real(q) :: u(3)
    if (isint) then
      u = [real(r + 1, q), real(-1 - mod(r, 2), q), real(2**r + 4, q)]
      if (i == 4) u(3) = 1 + mod(r, 2)
    else
      u = [real(r + 1, q), -0.5_q * (r + 1), 2.0_q ** r]
    end if
  end function vals

  ! the reduction by op i of vals over the ranks (exact in real(q))
  function expect(i, isint) result(w)
    integer, intent(in) :: i
    logical, intent(in) :: isint
    real(q) :: w(3), u(3)
    integer :: r
    w = vals(0, i, isint)
    do r = 1, nproc - 1
      u = vals(r, i, isint)
      select case (i)
      case (1); w = max(w, u)
      case (2); w = min(w, u)
      case (3); w = w + u
      case (4); w = w * u
      case (5); w = iand(int(w, 16), int(u, 16))
      case (6); w = ior(int(w, 16), int(u, 16))
      case (7); w = ieor(int(w, 16), int(u, 16))
      end select
    end do
  end function expect

  function cplx_expect(i, v) result(w)
    integer, intent(in) :: i
    complex(q), intent(in) :: v(2)
    complex(q) :: w(2), u(2)
    integer :: r
    do r = 0, nproc - 1
      u = [cmplx(r + 1, -r, q), cmplx(0.5_q, mod(r, 2), q)]
      if (r == 0) then
        w = u
      else if (i == 3) then
        w = w + u
      else
        w = w * u
      end if
    end do
    if (any(v /= v)) w = 0
  end function cplx_expect

  ! Allreduce of v in the k-th integer type, the result widened back
  subroutine int_reduce(k, op, v, got, ierr)
    integer, intent(in) :: k
    type(MPI_Op), intent(in) :: op
    integer(16), intent(in) :: v(3)
    integer(16), intent(out) :: got(3)
    integer, intent(out) :: ierr
    integer(1) :: s1(3), g1(3)
    integer(2) :: s2(3), g2(3)
    integer(4) :: s4(3), g4(3)
    integer(8) :: s8(3), g8(3)
    integer(16) :: g16(3)
    integer :: sd(3), gd(3)
    select case (k)
    case (1); s1 = int(v, 1); call MPI_Allreduce(s1, g1, 3, itypes(k), op, MPI_COMM_WORLD, ierr); got = g1
    case (2); s2 = int(v, 2); call MPI_Allreduce(s2, g2, 3, itypes(k), op, MPI_COMM_WORLD, ierr); got = g2
    case (3); s4 = int(v, 4); call MPI_Allreduce(s4, g4, 3, itypes(k), op, MPI_COMM_WORLD, ierr); got = g4
    case (4); s8 = int(v, 8); call MPI_Allreduce(s8, g8, 3, itypes(k), op, MPI_COMM_WORLD, ierr); got = g8
    case (5); call MPI_Allreduce(v, g16, 3, itypes(k), op, MPI_COMM_WORLD, ierr); got = g16
    case default; sd = int(v); call MPI_Allreduce(sd, gd, 3, itypes(k), op, MPI_COMM_WORLD, ierr); got = gd
    end select
  end subroutine int_reduce

  subroutine real_reduce(k, op, v, got, ierr)
    integer, intent(in) :: k
    type(MPI_Op), intent(in) :: op
    real(q), intent(in) :: v(3)
    real(q), intent(out) :: got(3)
    integer, intent(out) :: ierr
    real(4) :: s4(3), g4(3)
    real(8) :: s8(3), g8(3)
    real(q) :: g16(3)
    real :: sd(3), gd(3)
    double precision :: sdd(3), gdd(3)
    select case (k)
    case (1); s4 = real(v, 4); call MPI_Allreduce(s4, g4, 3, rtypes(k), op, MPI_COMM_WORLD, ierr); got = g4
    case (2); s8 = real(v, 8); call MPI_Allreduce(s8, g8, 3, rtypes(k), op, MPI_COMM_WORLD, ierr); got = g8
    case (3); call MPI_Allreduce(v, g16, 3, rtypes(k), op, MPI_COMM_WORLD, ierr); got = g16
    case (4); sd = real(v); call MPI_Allreduce(sd, gd, 3, rtypes(k), op, MPI_COMM_WORLD, ierr); got = gd
    case default
      sdd = real(v, kind(sdd)); call MPI_Allreduce(sdd, gdd, 3, rtypes(k), op, MPI_COMM_WORLD, ierr); got = gdd
    end select
  end subroutine real_reduce

  subroutine cplx_reduce(k, op, v, got, ierr)
    integer, intent(in) :: k
    type(MPI_Op), intent(in) :: op
    complex(q), intent(in) :: v(2)
    complex(q), intent(out) :: got(2)
    integer, intent(out) :: ierr
    complex(4) :: s4(2), g4(2)
    complex(8) :: s8(2), g8(2)
    complex(q) :: g16(2)
    double complex :: sd(2), gd(2)
    select case (k)
    case (1); s4 = cmplx(v, kind=4); call MPI_Allreduce(s4, g4, 2, ctypes(k), op, MPI_COMM_WORLD, ierr); got = g4
    case (2); s8 = cmplx(v, kind=8); call MPI_Allreduce(s8, g8, 2, ctypes(k), op, MPI_COMM_WORLD, ierr); got = g8
    case (3); call MPI_Allreduce(v, g16, 2, ctypes(k), op, MPI_COMM_WORLD, ierr); got = g16
    case default
      sd = cmplx(v, kind=kind(sd)); call MPI_Allreduce(sd, gd, 2, ctypes(k), op, MPI_COMM_WORLD, ierr); got = gd
    end select
  end subroutine cplx_reduce
end program f08_checklist
