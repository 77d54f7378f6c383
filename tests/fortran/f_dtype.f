! f_dtype: derived datatypes from Fortran arrays, in fixed form through
! include 'mpif.h': a row of a column-major matrix (MPI_Type_vector), a
! block (MPI_Type_create_subarray, MPI_ORDER_FORTRAN), a struct of an
! INTEGER and a DOUBLE PRECISION sent from MPI_BOTTOM with addresses from
! MPI_Get_address, the extent/size queries, and the deprecated INTEGER
! attributes (MPI_KEYVAL_CREATE with a Fortran copy callback, MPI_DUP_FN,
! MPI_ATTR_PUT/GET).
      PROGRAM F_DTYPE
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROC, I, J, ERRS, PEER
      INTEGER ROWT, BLKT, STRT, SZ
      INTEGER STATUS(MPI_STATUS_SIZE)
      INTEGER SIZES(2), SUBS(2), STARTS(2), BLENS(2), TYPES(2)
      INTEGER(KIND=MPI_ADDRESS_KIND) DISPS(2), LB, EXT
      DOUBLE PRECISION A(4,5), B(4,5), X
      INTEGER K, KV, KV2, DUP, DUP2, AVAL
      LOGICAL FLAG
      EXTERNAL ADD_EXTRA
      ERRS = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROC, IERR)
      PEER = MOD(RANK + 1, NPROC)
      DO J = 1, 5
         DO I = 1, 4
            A(I,J) = RANK * 1000 + I * 10 + J
            B(I,J) = -1
         END DO
      END DO
! Row 2 of A (5 elements, stride 4) to row 3 of B on the right neighbour.
      CALL MPI_TYPE_VECTOR(5, 1, 4, MPI_DOUBLE_PRECISION, ROWT, IERR)
      CALL MPI_TYPE_COMMIT(ROWT, IERR)
      CALL MPI_TYPE_SIZE(ROWT, SZ, IERR)
      CALL MPI_TYPE_GET_EXTENT(ROWT, LB, EXT, IERR)
      IF (SZ .NE. 40 .OR. EXT .NE. 136) THEN
         PRINT *, 'vector size/extent', SZ, EXT
         ERRS = ERRS + 1
      END IF
      CALL MPI_SENDRECV(A(2,1), 1, ROWT, PEER, 1, B(3,1), 1, ROWT,
     &     MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, STATUS, IERR)
      DO J = 1, 5
         X = STATUS(MPI_SOURCE) * 1000 + 20 + J
         IF (B(3,J) .NE. X .OR. B(2,J) .NE. -1) THEN
            PRINT *, 'row: B(3,', J, ')=', B(3,J), ' want', X
            ERRS = ERRS + 1
         END IF
      END DO
! The 2x3 block A(2:3, 2:4) into the same place of B.
      SIZES(1) = 4
      SIZES(2) = 5
      SUBS(1) = 2
      SUBS(2) = 3
      STARTS(1) = 1
      STARTS(2) = 1
      CALL MPI_TYPE_CREATE_SUBARRAY(2, SIZES, SUBS, STARTS,
     &     MPI_ORDER_FORTRAN, MPI_DOUBLE_PRECISION, BLKT, IERR)
      CALL MPI_TYPE_COMMIT(BLKT, IERR)
      B = -1
      CALL MPI_SENDRECV(A, 1, BLKT, PEER, 2, B, 1, BLKT,
     &     MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, STATUS, IERR)
      K = 0
      DO J = 1, 5
         DO I = 1, 4
            IF (I .GE. 2 .AND. I .LE. 3 .AND. J .GE. 2 .AND. J .LE. 4)
     &           THEN
               X = STATUS(MPI_SOURCE) * 1000 + I * 10 + J
            ELSE
               X = -1
            END IF
            IF (B(I,J) .NE. X) K = K + 1
         END DO
      END DO
      IF (K .NE. 0) THEN
         PRINT *, 'subarray: ', K, ' wrong elements'
         ERRS = ERRS + 1
      END IF
! A struct at absolute addresses: (K, X) sent from MPI_BOTTOM.
      K = RANK + 7
      X = RANK + 0.5D0
      CALL MPI_GET_ADDRESS(K, DISPS(1), IERR)
      CALL MPI_GET_ADDRESS(X, DISPS(2), IERR)
      BLENS(1) = 1
      BLENS(2) = 1
      TYPES(1) = MPI_INTEGER
      TYPES(2) = MPI_DOUBLE_PRECISION
      CALL MPI_TYPE_CREATE_STRUCT(2, BLENS, DISPS, TYPES, STRT, IERR)
      CALL MPI_TYPE_COMMIT(STRT, IERR)
      IF (RANK .EQ. 0) THEN
         CALL MPI_SEND(MPI_BOTTOM, 1, STRT, NPROC - 1, 3,
     &        MPI_COMM_WORLD, IERR)
      END IF
      IF (RANK .EQ. NPROC - 1) THEN
         CALL MPI_RECV(MPI_BOTTOM, 1, STRT, 0, 3, MPI_COMM_WORLD,
     &        MPI_STATUS_IGNORE, IERR)
         IF (K .NE. 7 .OR. X .NE. 0.5D0) THEN
            PRINT *, 'struct from MPI_BOTTOM:', K, X
            ERRS = ERRS + 1
         END IF
      END IF
! The deprecated INTEGER attributes: a copy callback in Fortran adds
! EXTRA_STATE (5) on MPI_COMM_DUP; MPI_DUP_FN copies as it is.
      CALL MPI_KEYVAL_CREATE(ADD_EXTRA, MPI_NULL_DELETE_FN, KV, 5, IERR)
      CALL MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, KV2, 0,
     &     IERR)
      CALL MPI_COMM_DUP(MPI_COMM_WORLD, DUP, IERR)
      CALL MPI_ATTR_PUT(DUP, KV, 100, IERR)
      CALL MPI_ATTR_PUT(DUP, KV2, 7, IERR)
      CALL MPI_COMM_DUP(DUP, DUP2, IERR)
      CALL MPI_ATTR_GET(DUP2, KV, AVAL, FLAG, IERR)
      IF (.NOT. FLAG .OR. AVAL .NE. 105) THEN
         PRINT *, 'MPI_KEYVAL_CREATE copy callback:', FLAG, AVAL
         ERRS = ERRS + 1
      END IF
      CALL MPI_ATTR_GET(DUP2, KV2, AVAL, FLAG, IERR)
      IF (.NOT. FLAG .OR. AVAL .NE. 7) THEN
         PRINT *, 'MPI_DUP_FN:', FLAG, AVAL
         ERRS = ERRS + 1
      END IF
      CALL MPI_ATTR_GET(DUP2, MPI_TAG_UB, AVAL, FLAG, IERR)
      IF (.NOT. FLAG .OR. AVAL .LT. 32767) THEN
         PRINT *, 'MPI_ATTR_GET of MPI_TAG_UB:', FLAG, AVAL
         ERRS = ERRS + 1
      END IF
      CALL MPI_COMM_FREE(DUP2, IERR)
      CALL MPI_COMM_FREE(DUP, IERR)
      CALL MPI_KEYVAL_FREE(KV, IERR)
      CALL MPI_KEYVAL_FREE(KV2, IERR)
      CALL MPI_TYPE_FREE(ROWT, IERR)
      CALL MPI_TYPE_FREE(BLKT, IERR)
      CALL MPI_TYPE_FREE(STRT, IERR)
      IF (ROWT .NE. MPI_DATATYPE_NULL) ERRS = ERRS + 1
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, ERRS, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) PRINT *, 'f_dtype: errors', ERRS
      CALL MPI_FINALIZE(IERR)
      IF (ERRS .NE. 0) STOP 1
      END

! The copy callback of MPI_KEYVAL_CREATE: all INTEGER, FLAG LOGICAL.
      SUBROUTINE ADD_EXTRA(COMM, KEYVAL, EXTRA, VALIN, VALOUT, FLAG,
     &     IERR)
      INTEGER COMM, KEYVAL, EXTRA, VALIN, VALOUT, IERR
      LOGICAL FLAG
      VALOUT = VALIN + EXTRA
      FLAG = .TRUE.
      IERR = 0
      END
