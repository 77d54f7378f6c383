/*
 * coll_algos.c -- prints the registered algorithms of every collective, one
 * "collective algorithm" pair per line, for bench/tune.sh to sweep.
 */
#include <stdio.h>
#include "coll/coll.h"

static const char *const names[CM_COLL_NUM] = {
    [CM_COLL_BARRIER] = "barrier", [CM_COLL_BCAST] = "bcast", [CM_COLL_REDUCE] = "reduce",
    [CM_COLL_ALLREDUCE] = "allreduce", [CM_COLL_ALLGATHER] = "allgather",
    [CM_COLL_ALLGATHERV] = "allgatherv", [CM_COLL_GATHER] = "gather", [CM_COLL_GATHERV] = "gatherv",
    [CM_COLL_SCATTER] = "scatter", [CM_COLL_SCATTERV] = "scatterv", [CM_COLL_ALLTOALL] = "alltoall",
    [CM_COLL_ALLTOALLV] = "alltoallv", [CM_COLL_ALLTOALLW] = "alltoallw",
    [CM_COLL_REDUCE_SCATTER] = "reduce_scatter", [CM_COLL_REDUCE_SCATTER_BLOCK] = "reduce_scatter_block",
    [CM_COLL_SCAN] = "scan", [CM_COLL_EXSCAN] = "exscan",
};

int main(void)
{
    for (int c = 0; c < CM_COLL_NUM; c++) {
        int n = 0;
        const struct cm_coll_algo *a = cm_coll_list((enum cm_coll_id)c, &n);
        for (int i = 0; i < n; i++)
            printf("%s %s\n", names[c], a[i].name);
    }
    return 0;
}
