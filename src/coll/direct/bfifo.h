/* The two ends of one broadcast-FIFO call that direct/bcast.c and
 * direct/scatter.c share: the root publishes entry k, a reader waits for it
 * and checks the root's argument word and signature class (direct.h,
 * argument agreement) before copying out.  Inline: both are on the 8-byte
 * hot path. */
#ifndef CM_COLL_DIRECT_BFIFO_H
#define CM_COLL_DIRECT_BFIFO_H

#include "coll/direct/direct.h"

/* The root, entry k filled: its word and class, then the sequence. */
static inline void cm_direct_bfifo_publish(struct cm_direct_bfifo_entry *e, uint32_t k)
{
    e->word = cm_direct_word;
    e->sig_class = (uint8_t)cm_direct_class_here;
    CM_FAULT(fifo_publish);
    atomic_store_explicit(&e->seq, k + 1, memory_order_release);
    cm_direct_wake32(&e->seq, &e->seq_waiters);
}

/* A reader of entry k from root: 1 when its data may be copied out; 0 when
 * the root's word or class differs (recorded: the call counts the entry done
 * and copies nothing); -1 when the root went elsewhere (the call returns at
 * once, the front end raises it). */
static inline int cm_direct_bfifo_read(struct cm_direct *s, struct cm_direct_bfifo_entry *e, uint32_t k, int root)
{
    cm_direct_wait32_from(s, &e->seq, &e->seq_waiters, k + 1, root);
    cm_direct_prefetch(cm_direct_bfifo(s, k + 1));
    if (__builtin_expect(cm_direct_mm.on, 0))
        return -1;
    if (cm_direct_words_differ(e->word, cm_direct_word))
        cm_direct_mismatch_seen(root, cm_direct_word, e->word);
    else if (cm_direct_classes_differ(e->sig_class, cm_direct_class_here))
        cm_direct_classes_seen(root, cm_direct_class_here, e->sig_class);
    else
        return 1;
    return 0;
}

#endif
