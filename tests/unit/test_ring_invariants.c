/*
 * test_ring_invariants.c -- the ring's CM_ASSERTs (src/shm/ring.h, built
 * here with CM_ASSERTS as a Debug or sanitizer build has it) stop a process
 * whose ring breaks R1 or R2 (docs/protocols.md), naming the invariant.
 * Each breach runs in a child; the parent wants SIGABRT and the id on stderr.
 *   r2: the consumer's published position passes the producer's
 *   r1_kind: a header at its seq whose kind is no message kind
 *   r1_wrap: a header at its seq whose length runs past the ring's end
 *   ok: a correct exchange around the ring twice does not stop
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm/ring.h"

#ifndef CM_ASSERTS
#error "built with CM_ASSERTS (tests/unit/CMakeLists.txt)"
#endif

enum { NSLOTS = 16 };
static struct cm_ring_ctl ctl;
static _Alignas(64) char slots[NSLOTS * CM_SLOT];
static struct cm_ring_tx tx;
static struct cm_ring_rx rx;

static void ring_new(void)
{
    memset(&ctl, 0, sizeof ctl);
    memset(slots, 0, sizeof slots);
    memset(&tx, 0, sizeof tx);
    memset(&rx, 0, sizeof rx);
    tx.v = rx.v = (struct cm_ring_view){ slots, &ctl, NSLOTS };
}

static int send_one(uint32_t len)
{
    struct cm_msg_hdr *h = cm_ring_reserve(&tx, len);
    if (!h)
        return 0;
    h->kind = CM_MSG_EAGER;
    h->len = len;
    cm_ring_publish(&tx, h);
    return 1;
}

static void breach(const char *what)
{
    ring_new();
    if (!strcmp(what, "r2")) {
        while (send_one(0))
            ;                                   /* full: 16 one-slot messages */
        atomic_store(&ctl.rpos, NSLOTS + 3);    /* "consumed" 3 never written */
        send_one(0);
    } else if (!strcmp(what, "r1_kind")) {
        struct cm_msg_hdr *h = cm_ring_slot(&rx.v, 0);
        h->kind = 0x7f;
        atomic_store(&h->seq, 1);
        cm_ring_peek(&rx);
    } else if (!strcmp(what, "r1_wrap")) {
        for (int i = 0; i < 14; i++) {          /* the read position to slot 14 */
            send_one(0);
            cm_ring_consume(&rx, cm_ring_peek(&rx));
        }
        struct cm_msg_hdr *h = cm_ring_slot(&rx.v, 14);
        h->kind = CM_MSG_EAGER;
        h->len = 3 * CM_SLOT;                   /* 4 slots from slot 14 of 16 */
        atomic_store(&h->seq, 15);
        cm_ring_peek(&rx);
    } else {
        for (int i = 0; i < 2 * NSLOTS; i++) {
            if (!send_one(i % 3 ? 0 : CM_SLOT))
                abort();
            struct cm_msg_hdr *h = cm_ring_peek(&rx);
            if (!h)
                abort();
            cm_ring_consume(&rx, h);
            cm_ring_rx_publish(&rx);
        }
    }
    exit(0);
}

/* Run a breach in a child; 0 when it ends as wanted. */
static int run(const char *what, const char *id)
{
    int fd[2];
    if (pipe(fd) != 0)
        return 1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        breach(what);
    }
    close(fd[1]);
    char out[1024] = "";
    size_t n = 0;
    ssize_t got;
    while (n < sizeof out - 1 && (got = read(fd[0], out + n, sizeof out - 1 - n)) > 0)
        n += (size_t)got;
    out[n] = 0;
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    int ok = id ? WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT && strstr(out, id) != NULL
                : WIFEXITED(st) && WEXITSTATUS(st) == 0;
    printf("%s %s: %s", ok ? "ok  " : "FAIL", what, out[0] ? out : id ? "(no report)\n" : "ran through\n");
    return !ok;
}

int main(void)
{
    int fail = 0;
    fail |= run("ok", NULL);
    fail |= run("r2", "invariant R2");
    fail |= run("r1_kind", "invariant R1");
    fail |= run("r1_wrap", "invariant R1");
    return fail;
}
