/* placement.c -- the seed 001 permutations, generalised to any slot count. */
#include "topo/placement.h"

#include <string.h>

static const struct {
    const char *name;
    enum cm_map_policy policy;
} policy_names[] = {
    {"core", CM_MAP_CORE},       {"identity", CM_MAP_IDENTITY}, {"ring", CM_MAP_RING},
    {"evenodd", CM_MAP_EVENODD}, {"leap2", CM_MAP_LEAP2},       {"overlap", CM_MAP_OVERLAP},
};

int cm_map_policy_parse(const char *name, enum cm_map_policy *policy)
{
    for (size_t i = 0; i < sizeof policy_names / sizeof policy_names[0]; i++)
        if (strcmp(name, policy_names[i].name) == 0) {
            *policy = policy_names[i].policy;
            return 0;
        }
    return -1;
}

const char *cm_map_policy_names(void) { return "core, identity, ring, evenodd, leap2, overlap"; }

const char *cm_map_policy_name(enum cm_map_policy policy)
{
    for (size_t i = 0; i < sizeof policy_names / sizeof policy_names[0]; i++)
        if (policy_names[i].policy == policy)
            return policy_names[i].name;
    return "?";
}

/* Position p along the machine's ring -> slot.  The ring runs up the even
 * slots and back down the odd ones, as the Cell's EIB ring visits SPEs
 * 0,2,4,6,7,5,3,1: so ring neighbours are slot neighbours or two apart. */
static int ring_position_to_slot(int p, int n)
{
    int evens = (n + 1) / 2;
    return p < evens ? 2 * p : 2 * (n - 1 - p) + 1;
}

/* Even ranks take the first half of the slots, odd ranks the second half,
 * recursively: a bit reversal when n is a power of two. */
static int evenodd_slot(int r, int n)
{
    int base = 0;
    while (n > 1) {
        int evens = (n + 1) / 2;
        if (r % 2 == 0) {
            n = evens;
        } else {
            base += evens;
            n -= evens;
        }
        r /= 2;
    }
    return base;
}

/* Adjacent ranks half-way across the ring: the worst case for a ring
 * pattern, kept as the paper's lower bound. */
static int overlap_slot(int r, int n)
{
    int half = (n + 1) / 2;
    int p = (r % 2 == 0) ? r / 2 : half + r / 2;
    return ring_position_to_slot(p, n);
}

int cm_map_slot(enum cm_map_policy policy, int rank, int nslots)
{
    if (nslots <= 1)
        return 0;
    int r = rank % nslots;
    switch (policy) {
    case CM_MAP_RING:
        return ring_position_to_slot(r, nslots);
    case CM_MAP_EVENODD:
        return evenodd_slot(r, nslots);
    case CM_MAP_LEAP2:
        return ring_position_to_slot(ring_position_to_slot(r, nslots), nslots);
    case CM_MAP_OVERLAP:
        return overlap_slot(r, nslots);
    case CM_MAP_CORE:
    case CM_MAP_IDENTITY:
    default:
        return r;
    }
}
