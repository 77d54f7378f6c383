/*
 * large_p2p.c -- the large-count bindings with one buffer and one count
 * (point-to-point, Bcast; rows LC_BUF of large.def), and Sendrecv_c,
 * Isendrecv_c.  Each resolves its count(s) (large.h) and calls its int twin.
 */
#include "mpi/large.h"
#include "core/state.h"
#include "fe_p2p.h"

#define LC_UNPAREN(...) __VA_ARGS__
#define LC_STR(x) #x
#define LC_WEAK(name) _Pragma(LC_STR(weak MPI_##name##_c = PMPI_##name##_c))

/* The body of a large-count binding of one buffer: resolve the count, call
 * the int twin.  LC_BUF's is a whole front end (Bcast's chapter is written
 * by hand); LC_P2P_BUF's is the impl its generated front end calls
 * (spec/p2p.api, layer_c=mpi), which has entered the call already. */
#define LC_BUF_BODY(name, params, args, commx)                                                      \
    {                                                                                               \
        struct cm_lc x;                                                                             \
        int rc = cm_lc_one(commx, "MPI_" #name "_c", "count", count, datatype, &x);                 \
        if (rc)                                                                                     \
            return rc;                                                                              \
        rc = PMPI_##name(buf, x.n, x.t, LC_UNPAREN args);                                           \
        cm_lc_free(&x);                                                                             \
        return rc;                                                                                  \
    }
#define LC_BUF(...) LC_BUF_(__VA_ARGS__)
#define LC_BUF_(name, bufdecl, params, args, commx)                                                   \
    LC_WEAK(name)                                                                                   \
    int PMPI_##name##_c(bufdecl, MPI_Count count, MPI_Datatype datatype, LC_UNPAREN params)         \
    {                                                                                               \
        CM_ENTER_LARGE(name##_c);                                                                   \
        LC_BUF_BODY(name, params, args, commx)                                                      \
    }
#define LC_P2P_BUF(...) LC_P2P_BUF_(__VA_ARGS__)
#define LC_P2P_BUF_(name, bufdecl, params, args, commx)                                               \
    int cm_##name##_c(bufdecl, MPI_Count count, MPI_Datatype datatype, LC_UNPAREN params)           \
        LC_BUF_BODY(name, params, args, commx)
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

int cm_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    struct cm_lc s, r;
    int rc = pair(comm, "MPI_Sendrecv_c", sendcount, sendtype, recvcount, recvtype, &s, &r);
    if (rc)
        return rc;
    rc = PMPI_Sendrecv(sendbuf, s.n, s.t, dest, sendtag, recvbuf, r.n, r.t, source, recvtag, comm, status);
    cm_lc_free(&s);
    cm_lc_free(&r);
    return rc;
}

int cm_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    struct cm_lc s, r;
    int rc = pair(comm, "MPI_Isendrecv_c", sendcount, sendtype, recvcount, recvtype, &s, &r);
    if (rc)
        return rc;
    rc = PMPI_Isendrecv(sendbuf, s.n, s.t, dest, sendtag, recvbuf, r.n, r.t, source, recvtag, comm, request);
    cm_lc_free(&s);
    cm_lc_free(&r);
    return rc;
}
