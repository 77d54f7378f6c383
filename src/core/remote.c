/* remote.c -- the table of remote ids (core/remote.h). */
#include "core/remote.h"

#include <errno.h>
#include <signal.h>

struct cm_rank_ctl *cm_remote_ctl[CM_REMOTE_MAX];
int cm_remote_list[CM_REMOTE_MAX];
int cm_remote_n;

static int refs[CM_REMOTE_MAX];
static unsigned char pinned[CM_REMOTE_MAX], listed[CM_REMOTE_MAX];

static void list_add(int i)
{
    if (!listed[i]) {
        listed[i] = 1;
        cm_remote_list[cm_remote_n++] = cm_g.slots + i;
    }
}

static void list_drop_if_idle(int i)
{
    if (!listed[i] || pinned[i] || refs[i] > 0)
        return;
    listed[i] = 0;
    for (int k = 0; k < cm_remote_n; k++)
        if (cm_remote_list[k] == cm_g.slots + i) {
            cm_remote_list[k] = cm_remote_list[--cm_remote_n];
            break;
        }
}

void cm_remote_register(int w, struct cm_rank_ctl *ctl)
{
    int i = w - cm_g.slots;
    cm_remote_ctl[i] = ctl;
    pinned[i] = 1;
    list_add(i);
}

void cm_remote_unpin(int w)
{
    int i = w - cm_g.slots;
    pinned[i] = 0;
    list_drop_if_idle(i);
}

void cm_remote_ref(const int *world, int n, int delta)
{
    for (int r = 0; r < n; r++) {
        int i = world[r] - cm_g.slots;
        if (i < 0 || !cm_remote_ctl[i])
            continue;
        refs[i] += delta;
        if (delta > 0)
            list_add(i);
        else
            list_drop_if_idle(i);
    }
}

int cm_remote_dead(void)
{
    for (int k = 0; k < cm_remote_n; k++) {
        struct cm_rank_ctl *c = cm_remote_ctl[cm_remote_list[k] - cm_g.slots];
        uint32_t st = atomic_load_explicit(&c->state, memory_order_acquire);
        if (st != CM_RANK_FINALIZED && c->pid > 0 && kill(c->pid, 0) != 0 &&
            errno == ESRCH)
            return cm_remote_list[k];
    }
    return -1;
}
