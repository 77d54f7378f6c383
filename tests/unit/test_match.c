/*
 * test_match.c -- unit tests of MPI matching (src/p2p/match.c): the
 * unexpected queue and the posted-receive queue keep arrival/post order,
 * honour wildcards, and keep contexts apart.  Runs as a singleton.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "p2p/p2p.h"
#include "p2p/match.h"
#include "core/request.h"
#include "core/status.h"

static int setup(void **state)
{
    (void)state;
    return PMPI_Init(NULL, NULL);
}

static int teardown(void **state)
{
    (void)state;
    return PMPI_Finalize();
}

static void add(int tag, uint16_t ctx, const char *text)
{
    assert_null(cm_match_eager(0, ctx, tag, 0, 0, text, strlen(text) + 1));
}

static void expect(uint16_t ctx, int src, int tag, const char *text)
{
    struct cm_unexp *u = cm_unexp_find(ctx, src, tag, 1);
    if (!text) {
        assert_null(u);
        return;
    }
    assert_non_null(u);
    assert_string_equal((const char *)u->data, text);
    free(u->data);
    free(u);
}

static void test_unexpected_fifo_and_wildcards(void **state)
{
    (void)state;
    add(5, 0, "a");
    add(6, 0, "b");
    add(5, 0, "c");
    expect(0, 0, 5, "a");           /* oldest with tag 5 */
    expect(0, -1, MPI_ANY_TAG, "b"); /* ANY_SOURCE, ANY_TAG: oldest of all */
    expect(0, 0, 6, NULL);           /* b is gone */
    expect(0, 0, 5, "c");
    expect(0, -1, MPI_ANY_TAG, NULL);
}

static void test_contexts_do_not_match(void **state)
{
    (void)state;
    add(1, 2, "other communicator");
    expect(0, -1, MPI_ANY_TAG, NULL);
    expect(2, 0, 1, "other communicator");
}

static void test_probe_does_not_remove(void **state)
{
    (void)state;
    add(9, 0, "x");
    assert_non_null(cm_unexp_find(0, 0, 9, 0));
    assert_non_null(cm_unexp_find(0, 0, 9, 0));
    expect(0, 0, 9, "x");
}

/* An arrival from rank 0: the receive it matched, or NULL (the message,
 * queued as unexpected, is taken off again). */
static struct cm_request *arrive(uint16_t ctx, int src, int tag)
{
    struct cm_request *r = cm_match_eager(src, ctx, tag, 0, 0, "m", 2);
    if (!r)
        expect(ctx, src, tag, "m");
    return r;
}

static struct cm_request *post(int tag, char *buf, int count)
{
    struct cm_request *r = cm_request_new(CM_REQ_RECV);
    r->buf = buf;
    r->count = count;
    r->dtype = MPI_CHAR;
    r->comm = MPI_COMM_WORLD;
    r->peer = MPI_ANY_SOURCE;
    r->tag = tag;
    cm_recv_start(r);
    return r;
}

static void test_posted_order(void **state)
{
    (void)state;
    char b1[8], b2[8];
    struct cm_request *r1 = post(MPI_ANY_TAG, b1, 8);
    struct cm_request *r2 = post(7, b2, 8);
    assert_false(r1->complete);
    /* A tag-7 message fits both: the older receive gets it. */
    assert_ptr_equal(arrive(0, 0, 7), r1);
    assert_ptr_equal(arrive(0, 0, 7), r2);
    assert_null(arrive(0, 0, 7));
    cm_request_release(r1);
    cm_request_release(r2);
}

static void test_posted_skips_wrong_context_and_tag(void **state)
{
    (void)state;
    char b[8];
    struct cm_request *r = post(3, b, 8);
    assert_null(arrive(1, 0, 3)); /* collective context of WORLD */
    assert_null(arrive(0, 0, 4));
    assert_ptr_equal(arrive(0, 0, 3), r);
    cm_request_release(r);
}

static void test_deliver_truncates(void **state)
{
    (void)state;
    char b[4] = { 'k', 'k', 'k', 'k' };
    struct cm_request *r = post(1, b, 2);
    assert_ptr_equal(arrive(0, 0, 1), r);   /* the caller delivers what matched */
    cm_recv_deliver(r, 0, 1, "wxyz", 4);
    assert_true(r->complete);
    assert_int_equal(r->status.MPI_ERROR, MPI_ERR_TRUNCATE);
    assert_int_equal(cm_status_bytes(&r->status), 2);
    assert_memory_equal(b, "wxkk", 4); /* nothing past the buffer */
    cm_request_release(r);
}

static void test_cancel_unposts(void **state)
{
    (void)state;
    char b[8];
    struct cm_request *r = post(11, b, 8);
    assert_int_equal(cm_recv_cancel(r), 1);
    assert_true(r->complete);
    assert_true(cm_status_cancelled(&r->status));
    assert_null(arrive(0, 0, 11));
    assert_int_equal(cm_recv_cancel(r), 0);
    cm_request_release(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unexpected_fifo_and_wildcards),
        cmocka_unit_test(test_contexts_do_not_match),
        cmocka_unit_test(test_probe_does_not_remove),
        cmocka_unit_test(test_posted_order),
        cmocka_unit_test(test_posted_skips_wrong_context_and_tag),
        cmocka_unit_test(test_deliver_truncates),
        cmocka_unit_test(test_cancel_unposts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
