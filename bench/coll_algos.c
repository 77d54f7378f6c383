/*
 * coll_algos.c -- prints the registered algorithms of every collective, one
 * "collective algorithm" pair per line, for bench/tune.sh to sweep (and for
 * tests/coll to compare the built registry with src/coll/algorithms.def).
 */
#include <stdio.h>
#include "coll/coll.h"

static const char *const names[CM_COLL_NUM] = {
#define CM_COLL(coll, COLL) [CM_COLL_##COLL] = #coll,
#include "coll/algorithms.def"
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
