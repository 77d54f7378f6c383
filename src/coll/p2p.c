/*
 * p2p.c -- the flags the collective running now gives its point-to-point
 * messages (coll/p2p.h).
 */
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/p2p.h"

CM_THREAD_LOCAL unsigned cm_coll_p2p_flags;
CM_THREAD_LOCAL uint32_t cm_coll_tag_word;
#endif
