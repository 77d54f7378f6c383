/*
 * test_ring.c -- unit tests of the per-pair SPSC ring (src/shm/ring.h):
 * single-threaded edge cases, then a producer and a consumer thread pushing
 * many messages of random sizes through a small ring.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shm/ring.h"

struct ring_mem {
    struct cm_ring_ctl ctl;
    char *slots;
    uint64_t nslots;
};

static void ring_new(struct ring_mem *m, uint64_t nslots, struct cm_ring_tx *tx, struct cm_ring_rx *rx)
{
    memset(&m->ctl, 0, sizeof m->ctl);
    m->nslots = nslots;
    m->slots = aligned_alloc(64, nslots * CM_SLOT);
    memset(m->slots, 0, nslots * CM_SLOT);
    memset(tx, 0, sizeof *tx);
    memset(rx, 0, sizeof *rx);
    tx->v = rx->v = (struct cm_ring_view){ m->slots, &m->ctl, nslots };
}

static int send_msg(struct cm_ring_tx *tx, uint32_t len, uint8_t fill, int tag)
{
    struct cm_msg_hdr *h = cm_ring_reserve(tx, len);
    if (!h)
        return 0;
    h->kind = CM_MSG_EAGER;
    h->flags = 0;
    h->ctx = 7;
    h->tag = tag;
    h->len = len;
    memset(cm_msg_payload(h), fill, len);
    cm_ring_publish(tx, h);
    return 1;
}

static void test_slots_for(void **state)
{
    (void)state;
    assert_int_equal(cm_ring_slots_for(0), 1);
    assert_int_equal(cm_ring_slots_for(CM_SLOT_INLINE), 1);
    assert_int_equal(cm_ring_slots_for(CM_SLOT_INLINE + 1), 2);
    assert_int_equal(cm_ring_slots_for(CM_SLOT_INLINE + CM_SLOT), 2);
    assert_int_equal(cm_ring_slots_for(CM_SLOT_INLINE + CM_SLOT + 1), 3);
}

static void test_empty_then_one(void **state)
{
    (void)state;
    struct ring_mem m;
    struct cm_ring_tx tx;
    struct cm_ring_rx rx;
    ring_new(&m, 16, &tx, &rx);
    assert_null(cm_ring_peek(&rx));
    assert_true(send_msg(&tx, 5, 0xab, 42));
    struct cm_msg_hdr *h = cm_ring_peek(&rx);
    assert_non_null(h);
    assert_int_equal(h->tag, 42);
    assert_int_equal(h->len, 5);
    assert_int_equal(h->ctx, 7);
    assert_int_equal(((unsigned char *)cm_msg_payload(h))[4], 0xab);
    cm_ring_consume(&rx, h);
    assert_null(cm_ring_peek(&rx));
    /* Published lazily: not yet, then on demand. */
    assert_int_equal(atomic_load(&m.ctl.rpos), 0);
    assert_int_equal(cm_ring_rx_publish(&rx), 1);
    assert_int_equal(atomic_load(&m.ctl.rpos), 1);
    assert_int_equal(cm_ring_rx_publish(&rx), 0);
    free(m.slots);
}

static void test_full_ring_refuses(void **state)
{
    (void)state;
    struct ring_mem m;
    struct cm_ring_tx tx;
    struct cm_ring_rx rx;
    ring_new(&m, 8, &tx, &rx);
    for (int i = 0; i < 8; i++)
        assert_true(send_msg(&tx, 1, (uint8_t)i, i));
    assert_false(send_msg(&tx, 1, 9, 9));
    /* Consuming one frees one slot, visible to the producer. */
    struct cm_msg_hdr *h = cm_ring_peek(&rx);
    assert_int_equal(h->tag, 0);
    cm_ring_consume(&rx, h);
    cm_ring_rx_publish(&rx);
    assert_true(send_msg(&tx, 1, 9, 9));
    for (int i = 1; i <= 8; i++) {
        h = cm_ring_peek(&rx);
        assert_non_null(h);
        assert_int_equal(h->tag, i == 8 ? 9 : i);
        cm_ring_consume(&rx, h);
    }
    assert_null(cm_ring_peek(&rx));
    free(m.slots);
}

static void test_wrap_uses_skip(void **state)
{
    (void)state;
    struct ring_mem m;
    struct cm_ring_tx tx;
    struct cm_ring_rx rx;
    ring_new(&m, 16, &tx, &rx);
    /* Fill 13 slots, drain them, then a 4-slot message must wrap to slot 0. */
    for (int i = 0; i < 13; i++)
        assert_true(send_msg(&tx, 1, 1, i));
    for (int i = 0; i < 13; i++) {
        struct cm_msg_hdr *h = cm_ring_peek(&rx);
        cm_ring_consume(&rx, h);
    }
    cm_ring_rx_publish(&rx);
    uint32_t len = CM_SLOT_INLINE + 3 * CM_SLOT; /* 4 slots */
    assert_true(send_msg(&tx, len, 0x5a, 99));
    struct cm_msg_hdr *h = cm_ring_peek(&rx);
    assert_non_null(h);
    assert_ptr_equal(h, (struct cm_msg_hdr *)m.slots); /* started at slot 0 */
    assert_int_equal(h->tag, 99);
    unsigned char *p = cm_msg_payload(h);
    for (uint32_t i = 0; i < len; i++)
        assert_int_equal(p[i], 0x5a);
    cm_ring_consume(&rx, h);
    assert_int_equal(rx.rpos, 16 + 4);
    free(m.slots);
}

/* Payload bytes left in a slot from an earlier lap must never pass for a header. */
static void test_stale_payload_is_not_a_header(void **state)
{
    (void)state;
    struct ring_mem m;
    struct cm_ring_tx tx;
    struct cm_ring_rx rx;
    ring_new(&m, 8, &tx, &rx);
    /* A message spanning slots 0..3 whose continuation words hold the values a
     * header at slot 1..3 would have on the next lap (pos + 1 + 8). */
    uint32_t len = CM_SLOT_INLINE + 3 * CM_SLOT;
    struct cm_msg_hdr *h = cm_ring_reserve(&tx, len);
    h->kind = CM_MSG_EAGER;
    h->len = len;
    unsigned char *p = cm_msg_payload(h);
    memset(p, 0, len);
    for (uint32_t s = 1; s < 4; s++) {
        uint32_t fake = (uint32_t)(s + 8 + 1);
        memcpy(p + CM_SLOT_INLINE + (s - 1) * CM_SLOT, &fake, 4);
    }
    cm_ring_publish(&tx, h);
    h = cm_ring_peek(&rx);
    cm_ring_consume(&rx, h);
    cm_ring_rx_publish(&rx);
    /* Next lap: rx at position 4, then 8.. Nothing was sent: nothing is seen. */
    for (int i = 0; i < 4; i++)
        assert_true(send_msg(&tx, 1, 0, i));
    for (int i = 0; i < 4; i++) {
        h = cm_ring_peek(&rx);
        assert_non_null(h);
        cm_ring_consume(&rx, h);
    }
    assert_int_equal(rx.rpos, 8);
    assert_null(cm_ring_peek(&rx));
    /* The stale words sit at positions 9..11: walk the reader onto each with
     * one real message at a time, and find nothing there. */
    for (int i = 0; i < 3; i++) {
        assert_true(send_msg(&tx, 1, 0, 10 + i));
        h = cm_ring_peek(&rx);
        assert_non_null(h);
        assert_int_equal(h->tag, 10 + i);
        cm_ring_consume(&rx, h);
        assert_int_equal(rx.rpos, 9 + i);
        assert_null(cm_ring_peek(&rx));
    }
    free(m.slots);
}

/* Two threads: every message arrives once, in order, intact. */
#define STRESS_MSGS 200000
struct stress {
    struct cm_ring_tx tx;
    struct cm_ring_rx rx;
    int errors;
};

static uint32_t stress_len(uint32_t i)
{
    uint32_t x = i * 2654435761u;
    return (x >> 7) % 700;
}

static void *producer(void *arg)
{
    struct stress *s = arg;
    for (uint32_t i = 0; i < STRESS_MSGS;) {
        uint32_t len = stress_len(i);
        struct cm_msg_hdr *h = cm_ring_reserve(&s->tx, len);
        if (!h) {
            sched_yield();
            continue;
        }
        h->kind = CM_MSG_EAGER;
        h->tag = (int32_t)i;
        h->len = len;
        unsigned char *p = cm_msg_payload(h);
        for (uint32_t k = 0; k < len; k++)
            p[k] = (unsigned char)(i + k);
        cm_ring_publish(&s->tx, h);
        i++;
    }
    return NULL;
}

static void test_two_threads(void **state)
{
    (void)state;
    struct ring_mem m;
    struct stress *s = calloc(1, sizeof *s);
    ring_new(&m, 64, &s->tx, &s->rx);
    pthread_t t;
    pthread_create(&t, NULL, producer, s);
    for (uint32_t i = 0; i < STRESS_MSGS;) {
        struct cm_msg_hdr *h = cm_ring_peek(&s->rx);
        if (!h) {
            sched_yield();
            continue;
        }
        if (h->tag != (int32_t)i || h->len != stress_len(i))
            s->errors++;
        unsigned char *p = cm_msg_payload(h);
        for (uint32_t k = 0; k < h->len; k++)
            if (p[k] != (unsigned char)(i + k)) {
                s->errors++;
                break;
            }
        cm_ring_consume(&s->rx, h);
        if ((i & 3) == 0)
            cm_ring_rx_publish(&s->rx);
        i++;
    }
    pthread_join(t, NULL);
    assert_int_equal(s->errors, 0);
    assert_null(cm_ring_peek(&s->rx));
    free(m.slots);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_for),
        cmocka_unit_test(test_empty_then_one),
        cmocka_unit_test(test_full_ring_refuses),
        cmocka_unit_test(test_wrap_uses_skip),
        cmocka_unit_test(test_stale_payload_is_not_a_header),
        cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
