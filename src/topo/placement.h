/*
 * placement.h -- rank-to-core placement policies (seed 001).
 *
 * A policy is a permutation of "slots": the cores a job may use, numbered in
 * hwloc's order.  The seed paper defines its affinities for 8 threads on the
 * 8 SPEs of a Cell; here they are generalised to any number of slots so that
 * they keep their shape (Ring: neighbours in rank are neighbours on the
 * machine's order; EvenOdd: even ranks fill one half, odd ranks the other,
 * recursively; Leap2: ring applied twice, so rank neighbours are two apart;
 * Overlap: rank neighbours are half-way across).  For 8 slots they give the
 * paper's tables exactly.
 */
#ifndef CM_TOPO_PLACEMENT_H
#define CM_TOPO_PLACEMENT_H

enum cm_map_policy {
    CM_MAP_CORE = 0,   /* rank i on core i (the default, same as identity) */
    CM_MAP_IDENTITY,
    CM_MAP_RING,
    CM_MAP_EVENODD,
    CM_MAP_LEAP2,
    CM_MAP_OVERLAP
};

/* Parse a policy name; returns 0, or -1 for an unknown name. */
int cm_map_policy_parse(const char *name, enum cm_map_policy *policy);

/* The accepted names, for help and error messages ("core, identity, ..."). */
const char *cm_map_policy_names(void);
/* One policy's name ("ring"). */
const char *cm_map_policy_name(enum cm_map_policy policy);

/* The slot (0..nslots-1) of rank; ranks beyond nslots wrap around. */
int cm_map_slot(enum cm_map_policy policy, int rank, int nslots);

#endif
