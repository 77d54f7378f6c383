/*
 * p2p_partitioned.c -- partitioned communication on a ring: 4 partitions of
 * 3000 ints (rendezvous sizes), three rounds started with Startall, made
 * ready by Pready (reverse order), Pready_range and Pready_list, watched
 * with Parrived, completed by Waitall, Wait and a Test loop; bad arguments.
 */
#include "check.h"

#define NP 4
#define PC 3000

int main(int argc, char **argv)
{
    static int out[NP * PC], in[NP * PC];
    int rank, size;
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Request rq[2];
    CHECK_MPI(MPI_Psend_init(out, NP, PC, MPI_INT, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    CHECK_MPI(MPI_Precv_init(in, NP, PC, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < NP * PC; i++)
            out[i] = rank * 100000 + round * 10000 + i;
        CHECK_MPI(MPI_Startall(2, rq));
        if (round == 0)
            for (int p = NP - 1; p >= 0; p--)
                CHECK_MPI(MPI_Pready(p, rq[0]));
        else if (round == 1)
            CHECK_MPI(MPI_Pready_range(0, NP - 1, rq[0]));
        else {
            int list[NP] = {2, 0, 3, 1};
            CHECK_MPI(MPI_Pready_list(NP, list, rq[0]));
        }
        int arrived = 0, seen[NP] = {0};
        while (arrived < NP)
            for (int p = 0; p < NP; p++) {
                int flag = 0;
                if (seen[p])
                    continue;
                CHECK_MPI(MPI_Parrived(rq[1], p, &flag));
                if (flag) {
                    seen[p] = 1;
                    arrived++;
                    CHECK(in[p * PC + 7] == left * 100000 + round * 10000 + p * PC + 7, "round %d partition %d", round, p);
                }
            }
        if (round == 0)
            CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        else if (round == 1) {
            CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
        } else {
            int flag = 0;
            while (!flag)
                CHECK_MPI(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE));
        }
        CHECK(rq[0] != MPI_REQUEST_NULL, "persistent request freed");
        for (int i = 0; i < NP * PC; i++)
            CHECK(in[i] == left * 100000 + round * 10000 + i, "round %d element %d: %d", round, i, in[i]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* Bad arguments. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Pready(0, rq[0]);
    CHECK(rc == MPI_ERR_REQUEST, "Pready of an inactive request: %d", rc);
    rc = MPI_Pready(0, rq[1]);
    CHECK(rc == MPI_ERR_REQUEST, "Pready of a receive: %d", rc);
    MPI_Request bad;
    rc = MPI_Psend_init(out, 0, PC, MPI_INT, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
    CHECK(rc == MPI_ERR_ARG, "zero partitions: %d", rc);
    rc = MPI_Precv_init(in, NP, PC, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
    CHECK(rc == MPI_ERR_ARG, "ANY_SOURCE: %d", rc);
    rc = MPI_Psend_init(out, NP, PC, MPI_INT, size, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
    CHECK(rc == MPI_ERR_RANK, "bad dest: %d", rc);
    CHECK_MPI(MPI_Request_free(&rq[0]));
    CHECK_MPI(MPI_Request_free(&rq[1]));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
