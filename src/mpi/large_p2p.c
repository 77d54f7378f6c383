/*
 * large_p2p.c -- the large-count bindings with one buffer and one count
 * (point-to-point, Bcast; rows LC_BUF of large.def), and Sendrecv_c,
 * Isendrecv_c.  Each resolves its count(s) (large.h) and calls its int twin.
 */
#include "mpi/large.h"
#include "core/state.h"
#include "fe_coll.h"
#include "fe_p2p.h"

#define LC_UNPAREN(...) __VA_ARGS__

/* One buffer and one count: fn is the C name. */
#define LC_BUF_DEF(fn, name, bufdecl, params, args, commx)                                            \
    int fn(bufdecl, MPI_Count count, MPI_Datatype datatype, LC_UNPAREN params)                      \
    {                                                                                               \
        struct cm_lc x;                                                                             \
        int rc = cm_lc_one(commx, "MPI_" #name "_c", "count", count, datatype, &x);                 \
        if (rc)                                                                                     \
            return rc;                                                                              \
        rc = PMPI_##name(buf, x.n, x.t, LC_UNPAREN args);                                           \
        cm_lc_free(&x);                                                                             \
        return rc;                                                                                  \
    }
/* The impl of a generated front end, which has entered the call already:
 * point to point (spec/p2p.api, layer_c=mpi) and the collective chapter's
 * Bcast family (spec/coll.api). */
#define LC_BUF(...) LC_BUF_(__VA_ARGS__)
#define LC_BUF_(name, ...) LC_BUF_DEF(cm_##name##_c, name, __VA_ARGS__)
#define LC_PIECES(...)
#define LC_REDTYPE(...)
#define LC_G2(...)
#define LC_GV(...)
#define LC_SV(...)
#define LC_AV(...)
#define LC_AW(...)
#define LC_RS(...)
#include "mpi/large.def"


/* Both sides of a send-receive, resolved; 0 or the error raised. */
static int pair(MPI_Comm comm, const char *call, MPI_Count sendcount, MPI_Datatype sendtype, MPI_Count recvcount,
                MPI_Datatype recvtype, struct cm_lc *s, struct cm_lc *r)
{
    int rc = cm_lc_one(comm, call, "sendcount", sendcount, sendtype, s);
    if (rc == MPI_SUCCESS && (rc = cm_lc_one(comm, call, "recvcount", recvcount, recvtype, r)) != MPI_SUCCESS)
        cm_lc_free(s);
    return rc;
}

/* Both send-receives: status for the blocking one, request for the other. */
static int sendrecv(const char *call, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status, int nonblocking, MPI_Request *request)
{
    struct cm_lc s, r;
    int rc = pair(comm, call, sendcount, sendtype, recvcount, recvtype, &s, &r);
    if (rc)
        return rc;
    rc = nonblocking ? PMPI_Isendrecv(sendbuf, s.n, s.t, dest, sendtag, recvbuf, r.n, r.t, source, recvtag, comm, request)
                     : PMPI_Sendrecv(sendbuf, s.n, s.t, dest, sendtag, recvbuf, r.n, r.t, source, recvtag, comm, status);
    cm_lc_free(&s);
    cm_lc_free(&r);
    return rc;
}

int cm_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                    recvtag, comm, status, 0, NULL);
}

int cm_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    return sendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                    source, recvtag, comm, MPI_STATUS_IGNORE, 1, request);
}
