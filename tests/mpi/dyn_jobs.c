/*
 * dyn_jobs.c -- MPI_Comm_accept/MPI_Comm_connect between two mpirun jobs
 * (docs/spawn.md "Two jobs"); dyn_jobs.sh starts both.
 *
 *   server PORTFILE NCLIENT   accept on a port written to PORTFILE, run the checks
 *   client PORTFILE NSERVER   connect to the port read from PORTFILE, run the checks
 *   closed PORTFILE DONEFILE  write a port that is closed already, wait for DONEFILE
 *   refused PORTFILE          connecting to PORTFILE's port is MPI_ERR_PORT, at once
 *   victim PORTFILE NSERVER   connect, then rank 0 kills itself while the server waits
 *   waiter PORTFILE NCLIENT   accept, then wait for a message that never comes
 *   server/client ... SERVICE  the same, the server also publishes the port as
 *                             SERVICE (and leaves it: mpirun removes it), the
 *                             client looks it up instead of reading PORTFILE
 *   taken PORTFILE 0 SERVICE  publishing SERVICE (another job's) is MPI_ERR_SERVICE
 *   gone PORTFILE 0 SERVICE   looking SERVICE up is MPI_ERR_NAME
 *   squat PORTFILE            claim PORTFILE's knock in its job's segment as a
 *                             connecting root would, and exit without knocking
 *                             (a root dead mid-handshake: the next one takes over)
 *   joina PORTFILE / joinb PORTFILE   MPI_Comm_join of rank 0 of each job over
 *                             TCP on 127.0.0.1 (joina listens, writes its TCP port)
 *
 * The checks, both groups alike: point-to-point both ways (every pair, in
 * order, through MPI_ANY_SOURCE/MPI_ANY_TAG; small, streamed and single-copy
 * sizes; Isend/Irecv; Probe), Barrier, Bcast with MPI_ROOT both ways,
 * Allreduce, Allgather, Iallreduce and Ibarrier across the groups,
 * Intercomm_merge and collectives on the
 * merged communicator, Comm_disconnect.
 */
#include <mpi.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "shm/dyn.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SOFT_CHECK_NAME "dyn_jobs"
#include "../soft_check.h"

static void write_port(const char *file, const char *port)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", port) < 0 || fclose(f) != 0 || rename(tmp, file) != 0) {
        perror("dyn_jobs: writing the port file");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void read_port(const char *file, char *port)
{
    FILE *f = fopen(file, "r");
    if (!f || !fgets(port, MPI_MAX_PORT_NAME, f)) {
        perror("dyn_jobs: reading the port file");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fclose(f);
    port[strcspn(port, "\n")] = 0;
}

#define MSGS 20
static const size_t big_sizes[] = { 1, 100, 20000, 200000, 3u << 20 };

static unsigned char pattern(size_t i, int from, int to) { return (unsigned char)(i * 7 + from * 31 + to * 131); }

static void p2p_checks(MPI_Comm inter, int server)
{
    int rank, size, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &rsize);
    /* Every pair, both ways, MSGS small messages in order. */
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)rsize * MSGS);
    int *out = malloc(sizeof *out * (size_t)rsize * MSGS * 3);
    for (int j = 0; j < rsize; j++)
        for (int m = 0; m < MSGS; m++) {
            int *o = out + 3 * (j * MSGS + m);
            o[0] = rank, o[1] = j, o[2] = m;
            MPI_Isend(o, 3, MPI_INT, j, 100 + m, inter, &reqs[j * MSGS + m]);
        }
    int *next = calloc((size_t)rsize, sizeof *next);
    for (int k = 0; k < rsize * MSGS; k++) {
        int in[3];
        MPI_Status st;
        MPI_Recv(in, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &st);
        int s = st.MPI_SOURCE;
        CHECK(s >= 0 && s < rsize && in[0] == s && in[1] == rank && in[2] == next[s] && st.MPI_TAG == 100 + next[s],
              "%s rank %d: message (%d,%d,%d) tag %d from %d, expected #%d", server ? "server" : "client", rank,
              in[0], in[1], in[2], st.MPI_TAG, s, s >= 0 && s < rsize ? next[s] : -1);
        if (s >= 0 && s < rsize)
            next[s]++;
    }
    MPI_Waitall(rsize * MSGS, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    free(out);
    free(next);
    /* The next messages must not meet the ANY_TAG receives above. */
    MPI_Barrier(inter);

    /* Sizes through every protocol: server rank r <-> client rank r.
     * The server's rank 0 sends first, then receives it back from the same
     * peer, checked byte by byte; Probe tells the size. */
    size_t most = big_sizes[sizeof big_sizes / sizeof *big_sizes - 1];
    unsigned char *buf = malloc(most);
    for (size_t k = 0; k < sizeof big_sizes / sizeof *big_sizes; k++) {
        size_t n = big_sizes[k];
        if (server && rank < rsize) {
            for (size_t i = 0; i < n; i++)
                buf[i] = pattern(i, rank, rank);
            MPI_Send(buf, (int)n, MPI_BYTE, rank, 7, inter);
            memset(buf, 0, n);
            MPI_Request r;
            MPI_Irecv(buf, (int)n, MPI_BYTE, rank, 8, inter, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            size_t bad = n;
            for (size_t i = 0; i < n && bad == n; i++)
                if (buf[i] != pattern(i, rank + 1000, rank))
                    bad = i;
            CHECK(bad == n, "server %d: %zu bytes back from client %d differ at %zu", rank, n, rank, bad);
        } else if (!server) {
            for (int s = rank; s < rank + 1 && s < rsize; s++) {   /* server rank r pairs with client r */
                MPI_Status st;
                int count;
                MPI_Probe(MPI_ANY_SOURCE, 7, inter, &st);
                MPI_Get_count(&st, MPI_BYTE, &count);
                CHECK(count == (int)n, "client %d: probed %d bytes, expected %zu", rank, count, n);
                int src = st.MPI_SOURCE;
                MPI_Recv(buf, (int)n, MPI_BYTE, src, 7, inter, MPI_STATUS_IGNORE);
                size_t bad = n;
                for (size_t i = 0; i < n && bad == n; i++)
                    if (buf[i] != pattern(i, src, src))
                        bad = i;
                CHECK(bad == n, "client %d: %zu bytes from server %d differ at %zu", rank, n, src, bad);
                for (size_t i = 0; i < n; i++)
                    buf[i] = pattern(i, src + 1000, src);
                MPI_Ssend(buf, (int)n, MPI_BYTE, src, 8, inter);
            }
        }
    }
    free(buf);
}

static void coll_checks(MPI_Comm inter, int server)
{
    int rank, size, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Barrier(inter);
    /* Bcast: the server's rank 0 to the clients, then the client's last
     * rank to the servers. */
    int v[4] = { 0, 0, 0, 0 };
    if (server) {
        if (rank == 0)
            v[0] = 4242, v[3] = -7;
        MPI_Bcast(v, 4, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
        MPI_Bcast(v, 4, MPI_INT, rsize - 1, inter);
        CHECK(v[0] == 99 && v[3] == rsize - 1, "server %d: bcast from the clients gave %d %d", rank, v[0], v[3]);
    } else {
        MPI_Bcast(v, 4, MPI_INT, 0, inter);
        CHECK(v[0] == 4242 && v[3] == -7, "client %d: bcast from the server gave %d %d", rank, v[0], v[3]);
        if (rank == size - 1)
            v[0] = 99, v[3] = rank;
        MPI_Bcast(v, 4, MPI_INT, rank == size - 1 ? MPI_ROOT : MPI_PROC_NULL, inter);
    }
    /* Allreduce: each group gets the other group's sum. */
    long mine = (server ? 1000 : 1) * (rank + 1), got = 0;
    MPI_Allreduce(&mine, &got, 1, MPI_LONG, MPI_SUM, inter);
    long want = (long)(server ? 1 : 1000) * rsize * (rsize + 1) / 2;
    CHECK(got == want, "%s %d: intercomm allreduce %ld, expected %ld", server ? "server" : "client", rank, got, want);
    /* Allgather: each gets the other group's ranks. */
    int *all = malloc(sizeof *all * (size_t)rsize);
    int me = rank + (server ? 0 : 100);
    MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, inter);
    for (int i = 0; i < rsize; i++)
        CHECK(all[i] == i + (server ? 100 : 0), "%s %d: allgather[%d] = %d", server ? "server" : "client", rank, i,
              all[i]);
    free(all);
    /* Nonblocking: Iallreduce across, Ibarrier. */
    MPI_Request rq[2];
    long isum = 0;
    MPI_Iallreduce(&mine, &isum, 1, MPI_LONG, MPI_SUM, inter, &rq[0]);
    MPI_Ibarrier(inter, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK(isum == want, "%s %d: intercomm iallreduce %ld, expected %ld", server ? "server" : "client", rank, isum,
          want);

    /* Merge: servers first. */
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, server ? 0 : 1, &merged);
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == size + rsize, "merged size %d, expected %d", msize, size + rsize);
    CHECK(mrank == (server ? rank : rsize + rank), "merged rank %d, expected %d", mrank, server ? rank : rsize + rank);
    long one = mrank, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, merged);
    CHECK(sum == (long)msize * (msize - 1) / 2, "merged allreduce %ld", sum);
    int b = mrank == msize - 1 ? 555 : 0;
    MPI_Bcast(&b, 1, MPI_INT, msize - 1, merged);
    CHECK(b == 555, "merged bcast %d", b);
    double big[4096], bigsum[4096];
    for (int i = 0; i < 4096; i++)
        big[i] = mrank + i;
    MPI_Allreduce(big, bigsum, 4096, MPI_DOUBLE, MPI_SUM, merged);
    CHECK(bigsum[4095] == (double)msize * 4095 + (double)msize * (msize - 1) / 2, "merged allreduce of 4096 doubles");
    /* Point-to-point in the merged communicator: a ring. */
    int token = mrank, from;
    MPI_Sendrecv(&token, 1, MPI_INT, (mrank + 1) % msize, 5, &from, 1, MPI_INT, (mrank + msize - 1) % msize, 5,
                 merged, MPI_STATUS_IGNORE);
    CHECK(from == (mrank + msize - 1) % msize, "merged ring got %d", from);
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
}

/* Rank 0 of each job joins over a socket; one message each way. */
static void join_checks(const char *file, int listener)
{
    int fd = -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t alen = sizeof a;
    if (listener) {
        int ls = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(bind(ls, (struct sockaddr *)&a, sizeof a) == 0 && listen(ls, 1) == 0 &&
              getsockname(ls, (struct sockaddr *)&a, &alen) == 0, "listen on 127.0.0.1");
        char num[32];
        snprintf(num, sizeof num, "%d", ntohs(a.sin_port));
        write_port(file, num);
        fd = accept(ls, NULL, NULL);
        close(ls);
    } else {
        char num[MPI_MAX_PORT_NAME];
        read_port(file, num);
        a.sin_port = htons((unsigned short)atoi(num));
        fd = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect to 127.0.0.1:%s", num);
    }
    MPI_Comm inter;
    CHECK(MPI_Comm_join(fd, &inter) == MPI_SUCCESS, "join across jobs failed");
    int rsize = 0, mine = listener ? 11 : 22, got = 0;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 1, "joined remote size %d", rsize);
    MPI_Sendrecv(&mine, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
    CHECK(got == (listener ? 22 : 11), "joined peer sent %d", got);
    MPI_Comm_disconnect(&inter);
    close(fd);
}

/* What a connecting root does first (mpi/dyn_remote.c), then nothing. */
static void squat(const char *file)
{
    char port[MPI_MAX_PORT_NAME], path[64];
    long job;
    int slot, fd;
    unsigned number;
    read_port(file, port);
    CHECK(sscanf(port, "corempi-port:%ld:%d:%u:%d", &job, &slot, &number, &fd) == 4, "port '%s'", port);
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", job, fd);
    int f = open(path, O_RDWR);
    struct stat st;
    CHECK(f >= 0 && fstat(f, &st) == 0, "open %s", path);
    void *seg = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    CHECK(seg != MAP_FAILED, "map %s", path);
    uint64_t free_word = 0;
    CHECK(atomic_compare_exchange_strong(&cm_seg_dyn(seg)->knock[number].word, &free_word,
                                         cm_knock_word(getpid(), CM_KNOCK_CLAIMED)), "the knock was not free");
    close(f);
}

static int err_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: dyn_jobs server|client|closed|refused|victim|waiter PORTFILE [N]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1], *file = argv[2];
    int n = argc > 3 ? atoi(argv[3]) : 0;
    const char *svc = argc > 4 ? argv[4] : NULL;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter = MPI_COMM_NULL;
    int server = !strcmp(mode, "server") || !strcmp(mode, "waiter");
    if (!strcmp(mode, "squat")) {
        if (rank == 0)
            squat(file);
    } else if (!strcmp(mode, "joina") || !strcmp(mode, "joinb")) {
        if (rank == 0)
            join_checks(file, mode[4] == 'a');
    } else if (!strcmp(mode, "taken") || !strcmp(mode, "gone")) {
        if (rank == 0) {
            int rc = !strcmp(mode, "taken") ? MPI_Publish_name(svc, MPI_INFO_NULL, "corempi-port:1:0:1:3")
                                            : MPI_Lookup_name(svc, MPI_INFO_NULL, port);
            int want = !strcmp(mode, "taken") ? MPI_ERR_SERVICE : MPI_ERR_NAME;
            CHECK(err_class(rc) == want, "%s '%s': class %d, expected %d", mode, svc, err_class(rc), want);
        }
    } else if (!strcmp(mode, "closed")) {
        if (rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MPI_Close_port(port);
            write_port(file, port);
            for (int i = 0; i < 400 && access(argv[3], F_OK) != 0; i++)
                usleep(50000);
        }
    } else if (!strcmp(mode, "refused")) {
        read_port(file, port);
        time_t t0 = time(NULL);
        int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        CHECK(err_class(rc) == MPI_ERR_PORT, "connecting to '%s' gave class %d, expected MPI_ERR_PORT", port,
              err_class(rc));
        CHECK(time(NULL) - t0 < 5, "the refusal took %ld s", (long)(time(NULL) - t0));
        CHECK(inter == MPI_COMM_NULL, "newcomm is not MPI_COMM_NULL after a refusal");
        if (rank == 0) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, msg, &len);
            printf("dyn_jobs: refused as expected: %s\n", msg);
        }
    } else if (server) {
        if (rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            if (svc)
                CHECK(MPI_Publish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS, "publishing '%s'", svc);
            write_port(file, port);
        }
        CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter) == MPI_SUCCESS, "accept failed");
    } else {
        if (!svc)
            read_port(file, port);
        else if (rank == 0)
            CHECK(MPI_Lookup_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS, "looking '%s' up", svc);
        CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter) == MPI_SUCCESS, "connect failed");
    }
    if (inter != MPI_COMM_NULL) {
        int rsize, flag;
        MPI_Comm_remote_size(inter, &rsize);
        MPI_Comm_test_inter(inter, &flag);
        CHECK(flag && rsize == n, "remote size %d, expected %d", rsize, n);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        if (!strcmp(mode, "victim")) {
            MPI_Barrier(inter);
            if (rank == 0)
                raise(SIGKILL);
            MPI_Barrier(MPI_COMM_WORLD);   /* the others wait for their job to end */
        } else if (!strcmp(mode, "waiter")) {
            MPI_Barrier(inter);
            int x;
            MPI_Recv(&x, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);   /* never sent: the client dies */
            CHECK(0, "a receive from a dead job returned");
        } else {
            p2p_checks(inter, server);
            coll_checks(inter, server);
            CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL, "disconnect");
        }
    }
    if (server && rank == 0)
        MPI_Close_port(port);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("dyn_jobs %s: %s (%d processes)\n", mode, all ? "FAILED" : "ok", size);
    MPI_Finalize();
    return all ? 1 : 0;
}
