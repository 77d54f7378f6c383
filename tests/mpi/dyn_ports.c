/* dyn_ports.c -- ports, the name service and MPI_Comm_join within one job.
 *
 *   dyn_ports ports     MPI_COMM_WORLD split in two halves: the first opens
 *                       a port and publishes it, the second looks it up and
 *                       connects; point-to-point and Allreduce across, then
 *                       disconnect.  Then the errors: an unknown name
 *                       (MPI_ERR_NAME), unpublishing twice (MPI_ERR_SERVICE),
 *                       a closed port, another job's port, a malformed name
 *                       (MPI_ERR_PORT); and MPI_Comm_join over a TCP
 *                       connection on 127.0.0.1 between world ranks 0 and 1.
 *   dyn_ports children  the parents spawn two children, which connect back
 *                       to a port the parents accept on (name through the
 *                       parent intercommunicator).
 */
#include <mpi.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"

static int wrank, wsize;

static int err_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Across intercomm: each rank sends its world rank to the remote rank of
 * the same number (when there is one); Allreduce of the world ranks. */
static void talk(MPI_Comm inter, int expect_remote_sum)
{
    int r, rs;
    MPI_Comm_rank(inter, &r);
    MPI_Comm_remote_size(inter, &rs);
    int sum = -1;
    MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(sum == expect_remote_sum, "allreduce across gave %d, expected %d", sum, expect_remote_sum);
    if (r < rs) {
        int got = -1;
        MPI_Sendrecv(&wrank, 1, MPI_INT, r, 5, &got, 1, MPI_INT, r, 5, inter, MPI_STATUS_IGNORE);
        CHECK(got >= 0, "sendrecv gave %d", got);
    }
}

static void ports(void)
{
    /* Names reach other jobs of this user (docs/spawn.md): one per job, so
     * that the test's runs in parallel do not take each other's. */
    char svc[64];
    snprintf(svc, sizeof svc, "corempi-test-svc-%ld", (long)getppid());
    int half = wsize / 2, low = wrank < half;
    MPI_Comm side;
    MPI_Comm_split(MPI_COMM_WORLD, low, wrank, &side);
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm inter;
    int low_sum = half * (half - 1) / 2, high_sum = wsize * (wsize - 1) / 2 - low_sum;
    if (low) {
        if (wrank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MPI_Publish_name(svc, MPI_INFO_NULL, port);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, side, &inter);
        talk(inter, high_sum);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (wrank == half)
            MPI_Lookup_name(svc, MPI_INFO_NULL, port);
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, side, &inter);
        talk(inter, low_sum);
    }
    MPI_Comm_disconnect(&inter);
    MPI_Comm_free(&side);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (wrank == 0) {
        CHECK(MPI_Unpublish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS, "unpublish");
        CHECK(err_class(MPI_Unpublish_name(svc, MPI_INFO_NULL, port)) == MPI_ERR_SERVICE,
              "unpublishing twice is not MPI_ERR_SERVICE");
        MPI_Close_port(port);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    char got[MPI_MAX_PORT_NAME];
    CHECK(err_class(MPI_Lookup_name(svc, MPI_INFO_NULL, got)) == MPI_ERR_NAME,
          "an unpublished name is not MPI_ERR_NAME");
    CHECK(err_class(MPI_Lookup_name("no-such-service", MPI_INFO_NULL, got)) == MPI_ERR_NAME,
          "an unknown name is not MPI_ERR_NAME");
    if (wrank == 0) /* the closed port: refused, not a wait */
        CHECK(err_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter)) == MPI_ERR_PORT,
              "connecting to a closed port is not MPI_ERR_PORT");
    CHECK(err_class(MPI_Comm_connect("corempi-port:1:0:1:3", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter)) ==
              MPI_ERR_PORT, "a port of a job that is not running is not MPI_ERR_PORT");
    CHECK(err_class(MPI_Comm_accept("garbage", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter)) == MPI_ERR_PORT,
          "a malformed port is not MPI_ERR_PORT");
    CHECK(err_class(MPI_Publish_name("x", MPI_INFO_NULL, NULL)) == MPI_ERR_ARG, "a NULL port is not MPI_ERR_ARG");

    /* MPI_Comm_join between world ranks 0 and 1 over TCP on 127.0.0.1. */
    if (wrank <= 1) {
        int fd = -1;
        if (wrank == 0) {
            int ls = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
            socklen_t alen = sizeof a;
            CHECK(bind(ls, (struct sockaddr *)&a, sizeof a) == 0 && listen(ls, 1) == 0 &&
                  getsockname(ls, (struct sockaddr *)&a, &alen) == 0, "listen on 127.0.0.1");
            int p = ntohs(a.sin_port);
            MPI_Send(&p, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
            fd = accept(ls, NULL, NULL);
            close(ls);
        } else {
            int p;
            MPI_Recv(&p, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p),
                                     .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
            CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect to 127.0.0.1:%d", p);
        }
        CHECK(fd >= 0, "no socket");
        MPI_Comm joined;
        CHECK(MPI_Comm_join(fd, &joined) == MPI_SUCCESS, "join");
        int rs, v = wrank, other = -1;
        MPI_Comm_remote_size(joined, &rs);
        CHECK(rs == 1, "joined remote size %d", rs);
        MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &other, 1, MPI_INT, 0, 3, joined, MPI_STATUS_IGNORE);
        CHECK(other == 1 - wrank, "joined peer sent %d", other);
        MPI_Comm_disconnect(&joined);
        close(fd);
        CHECK(err_class(MPI_Comm_join(-1, &joined)) == MPI_ERR_ARG, "join on fd -1 is not MPI_ERR_ARG");
    }
}

static void children(int argc, char **argv, MPI_Comm parent)
{
    (void)argc; (void)argv;
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm inter;
    if (parent == MPI_COMM_NULL) {
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        CHECK(n > 0, "readlink");
        self[n] = '\0';
        char *args[] = { "children", NULL };
        MPI_Comm kids;
        MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE);
        if (wrank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 1, kids);
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        talk(inter, 0 + 1);
        MPI_Comm_disconnect(&inter);
        if (wrank == 0)
            MPI_Close_port(port);
        MPI_Comm_disconnect(&kids);
    } else {
        if (wrank == 0)
            MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 1, parent, MPI_STATUS_IGNORE);
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        int ps;
        MPI_Comm_remote_size(inter, &ps);
        talk(inter, ps * (ps - 1) / 2);
        MPI_Comm_disconnect(&inter);
        MPI_Comm_disconnect(&parent);
    }
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, &wrank, &wsize);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    const char *mode = argc > 1 ? argv[1] : "ports";
    if (!strcmp(mode, "ports")) {
        CHECK(wsize >= 2, "needs 2 ranks");
        ports();
    } else if (!strcmp(mode, "children")) {
        children(argc, argv, parent);
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    MPI_Finalize();
    if (wrank == 0 && parent == MPI_COMM_NULL)
        printf("dyn_ports %s: ok\n", mode);
    return 0;
}
