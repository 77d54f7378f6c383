/*
 * check_trace MODE DIR NPROCS -- checks the traces that a test program left in
 * DIR, through the reader library (cpt_read), against what the program did.
 * Exit 0 if everything matches, 1 with a message per mismatch otherwise.
 */
#include "cpt_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOFT_CHECK_NAME "check_trace"
#include "../soft_check.h"

static int call_id(const cpt_trace *t, const char *name)
{
    for (size_t i = 0; i < t->n_call_names; i++)
        if (t->call_names[i] && strcmp(t->call_names[i], name) == 0) return (int)i;
    return -1;
}

static int is_call(const cpt_trace *t, const cpt_event *e, const char *name)
{
    return e->call == call_id(t, name);
}

/* What every complete trace must have, whatever the program. */
static void check_common(const cpt_trace *t, int rank, int n)
{
    CHECK(t->complete, "%s", t->error);
    CHECK(t->header.rank == rank && t->header.world_size == n, "rank %d/%d in header of rank %d",
          t->header.rank, t->header.world_size, rank);
    CHECK(t->have_final_meta, "rank %d: no Finalize metadata", rank);
    CHECK(t->have_clock, "rank %d: no clock offset", rank);
    CHECK(t->hostname[0] != 0, "rank %d: no hostname", rank);
    CHECK(t->pid > 0, "rank %d: no pid", rank);
    CHECK(t->n_objects > 0, "rank %d: no loaded objects", rank);
    CHECK(call_id(t, "MPI_Send") >= CPT_CALL_FIRST_MPI, "rank %d: no call-name table", rank);
    const cpt_comm *w = cpt_find_comm(t, CPT_COMM_WORLD);
    CHECK(w && w->size == n, "rank %d: MPI_COMM_WORLD missing from the comm table", rank);
    CHECK(t->header.impl_name[0] != 0, "rank %d: no MPI implementation name", rank);
}

/* Return addresses of the program's own calls must resolve to its executable. */
static void check_caller(const cpt_trace *t, const cpt_event *e, const char *prog)
{
    uint64_t rel = 0;
    const cpt_object *o = cpt_find_object(t, e->caller, &rel);
    CHECK(o && strstr(o->path, prog), "caller 0x%llx of %s resolves to %s, expected %s",
          (unsigned long long)e->caller, cpt_call_name(t, e->call), o ? o->path : "nothing", prog);
}

static void check_ring(cpt_trace *tr, int n)
{
    enum { ITERS = 50 };
    for (int r = 0; r < n; r++) {
        cpt_trace *t = &tr[r];
        check_common(t, r, n);
        int next = (r + 1) % n, prev = (r + n - 1) % n, sends = 0, recvs = 0, other_sends = 0;
        for (size_t i = 0; i < t->n_events; i++) {
            const cpt_event *e = &t->events[i];
            if (is_call(t, e, "MPI_Send")) {
                CHECK(e->peer == next, "rank %d: send to %d, expected %d", r, e->peer, next);
                CHECK(e->bytes == 4u * (1 + r), "rank %d: send of %llu bytes", r, (unsigned long long)e->bytes);
                CHECK(e->tag == 10 + sends, "rank %d: send tag %d, expected %d", r, e->tag, 10 + sends);
                CHECK(e->comm == CPT_COMM_WORLD && (e->flags & CPT_F_SEND), "rank %d: send comm/flags", r);
                if (sends == 0) check_caller(t, e, "ring");
                sends++;
            } else if (is_call(t, e, "MPI_Recv")) {
                CHECK(e->peer == prev, "rank %d: recv from %d, expected %d", r, e->peer, prev);
                CHECK(e->bytes == 4u * (1 + prev), "rank %d: recv of %llu bytes", r, (unsigned long long)e->bytes);
                CHECK(e->flags & CPT_F_RECV, "rank %d: recv flags", r);
                recvs++;
            } else if (e->flags & CPT_F_SEND) {
                other_sends++;
            }
            CHECK(e->duration_ns < 60000000000ull, "rank %d: absurd duration", r);
        }
        CHECK(sends == ITERS, "rank %d: %d sends, expected %d", r, sends, ITERS);
        CHECK(recvs == ITERS, "rank %d: %d recvs, expected %d", r, recvs, ITERS);
        CHECK(other_sends == 0, "rank %d: %d unexpected send records", r, other_sends);
    }
}

static void check_allreduce(cpt_trace *tr, int n)
{
    enum { ITERS = 20 };
    for (int r = 0; r < n; r++) {
        cpt_trace *t = &tr[r];
        check_common(t, r, n);
        int world = 0, half = 0, bcast = 0;
        uint32_t half_id = 0;
        for (size_t i = 0; i < t->n_events; i++) {
            const cpt_event *e = &t->events[i];
            CHECK(!(e->flags & CPT_F_SEND), "rank %d: a send record in a collective-only program", r);
            if (is_call(t, e, "MPI_Allreduce")) {
                CHECK(e->flags & CPT_F_COLLECTIVE, "rank %d: allreduce not flagged collective", r);
                if (e->comm == CPT_COMM_WORLD) {
                    CHECK(e->bytes == 32, "rank %d: world allreduce of %llu bytes", r, (unsigned long long)e->bytes);
                    world++;
                } else {
                    CHECK(e->bytes == 16, "rank %d: split allreduce of %llu bytes", r, (unsigned long long)e->bytes);
                    half_id = e->comm;
                    half++;
                }
            } else if (is_call(t, e, "MPI_Bcast")) {
                CHECK(e->peer == r % 2 && (e->flags & CPT_F_ROOT), "rank %d: bcast root %d, expected world rank %d",
                      r, e->peer, r % 2);
                bcast++;
            }
        }
        CHECK(world == ITERS && half == ITERS && bcast == 1, "rank %d: %d/%d allreduces, %d bcasts", r, world,
              half, bcast);
        const cpt_comm *c = cpt_find_comm(t, half_id);
        CHECK(c != NULL, "rank %d: split communicator %u not in the comm table", r, half_id);
        if (c) {
            CHECK(c->size == (n + 1 - r % 2) / 2, "rank %d: split comm size %d", r, c->size);
            for (int k = 0; k < c->size; k++)
                CHECK(c->world_ranks[k] == 2 * k + r % 2, "rank %d: member %d is world rank %d", r, k,
                      c->world_ranks[k]);
        }
    }
}

static void check_anysource(cpt_trace *tr, int n)
{
    for (int r = 0; r < n; r++) {
        cpt_trace *t = &tr[r];
        check_common(t, r, n);
        uint32_t started[64] = {0};
        int nstarted = 0, ncompleted = 0;
        int seen_from[64] = {0};
        for (size_t i = 0; i < t->n_events; i++) {
            const cpt_event *e = &t->events[i];
            int init = is_call(t, e, "MPI_Irecv") || is_call(t, e, "MPI_Isend");
            if (init) {
                CHECK(e->request != 0 && (e->flags & CPT_F_NONBLOCKING), "rank %d: initiation without request id", r);
                if (r == 0) CHECK(e->peer == CPT_PEER_ANY, "rank 0: Irecv peer %d, expected ANY", e->peer);
                else CHECK(e->peer == 0 && e->bytes == 8u * r, "rank %d: Isend to %d of %llu bytes", r, e->peer,
                           (unsigned long long)e->bytes);
                if (nstarted < 64) started[nstarted++] = e->request;
            }
            if (e->flags & CPT_F_COMPLETION) {
                int paired = 0;
                for (int k = 0; k < nstarted; k++) paired |= started[k] == e->request;
                CHECK(paired, "rank %d: completion with request id %u that was never started", r, e->request);
                if (r == 0) {
                    CHECK(is_call(t, e, "MPI_Waitall"), "rank 0: completion in %s", cpt_call_name(t, e->call));
                    CHECK(e->peer >= 1 && e->peer < n && e->peer < 64, "rank 0: matched source %d", e->peer);
                    if (e->peer >= 1 && e->peer < n && e->peer < 64) {
                        CHECK(e->bytes == 8u * e->peer, "rank 0: %llu bytes from %d", (unsigned long long)e->bytes,
                              e->peer);
                        seen_from[e->peer]++;
                    }
                } else {
                    CHECK(is_call(t, e, "MPI_Wait") && e->peer == 0, "rank %d: completion %s peer %d", r,
                          cpt_call_name(t, e->call), e->peer);
                }
                ncompleted++;
            }
        }
        int expect = r == 0 ? n - 1 : 1;
        CHECK(nstarted == expect && ncompleted == expect, "rank %d: %d started, %d completed, expected %d", r,
              nstarted, ncompleted, expect);
        if (r == 0)
            for (int s = 1; s < n && s < 64; s++) CHECK(seen_from[s] == 1, "rank 0: %d messages from %d", seen_from[s], s);
    }
}

static void check_killed(cpt_trace *tr, int n)
{
    /* files of ranks that the launcher killed may or may not be complete; all must be readable */
    for (int r = 0; r < n; r++) {
        cpt_trace *t = &tr[r];
        CHECK(t->header.world_size == n, "rank %d: unreadable: %s", r, t->error);
        printf("rank %d: %s, %zu events in %zu blocks%s%s\n", r, t->complete ? "complete" : "incomplete",
               t->n_events, t->n_event_blocks, t->complete ? "" : ": ", t->complete ? "" : t->error);
    }
    cpt_trace *k = &tr[1];
    CHECK(!k->complete, "rank 1 was killed but its trace says complete");
    CHECK(k->error[0] != 0 && strstr(k->error, "1.cpt"), "rank 1: the message must name the file: %s", k->error);
    CHECK(k->n_events >= 1000, "rank 1: only %zu events survived (expected the flushed blocks)", k->n_events);
    CHECK(k->have_meta && call_id(k, "MPI_Comm_rank") > 0, "rank 1: Init metadata lost");
    int flushes = 0;
    for (size_t i = 0; i < k->n_events; i++) flushes += k->events[i].call == CPT_CALL_FLUSH;
    CHECK(flushes >= 5, "rank 1: %d flush events", flushes);
}

static void check_segv(cpt_trace *tr, int n)
{
    cpt_trace *k = &tr[1];
    CHECK(!k->complete, "rank 1 crashed but its trace says complete");
    CHECK(k->n_event_blocks == 1, "rank 1: %zu event blocks, expected the one the handler wrote", k->n_event_blocks);
    int ranks = 0, barrier = 0;
    for (size_t i = 0; i < k->n_events; i++) {
        ranks += is_call(k, &k->events[i], "MPI_Comm_rank");
        barrier += is_call(k, &k->events[i], "MPI_Barrier");
    }
    CHECK(ranks == 101 && barrier == 1, "rank 1: %d Comm_rank and %d Barrier records survived", ranks, barrier);
    (void)n;
}

static void check_requests(cpt_trace *tr, int n)
{
    for (int r = 0; r < n; r++) {
        cpt_trace *t = &tr[r];
        check_common(t, r, n);
        enum { MAXR = 256 };
        uint32_t ids[MAXR];
        int completions[MAXR] = {0}, persistent[MAXR] = {0}, nids = 0, starts = 0, sendrecv_halves = 0;
        for (size_t i = 0; i < t->n_events; i++) {
            const cpt_event *e = &t->events[i];
            if ((e->flags & CPT_F_NONBLOCKING) && e->request && !is_call(t, e, "MPI_Startall")) {
                CHECK(nids < MAXR, "too many requests");
                if (nids < MAXR) {
                    persistent[nids] = !!(e->flags & CPT_F_PERSISTENT_INIT);
                    ids[nids++] = e->request;
                }
            }
            if (is_call(t, e, "MPI_Startall")) {
                int known = 0;
                for (int k = 0; k < nids; k++) known |= ids[k] == e->request && persistent[k];
                CHECK(known, "rank %d: Startall of request %u that no *_init created", r, e->request);
                starts++;
            }
            if (e->flags & CPT_F_COMPLETION) {
                int k = 0;
                while (k < nids && ids[k] != e->request) k++;
                CHECK(k < nids, "rank %d: completion in %s of unknown request %u", r, cpt_call_name(t, e->call),
                      e->request);
                if (k < nids) completions[k]++;
                if (e->flags & CPT_F_RECV) CHECK(e->peer == (r + n - 1) % n, "rank %d: matched source %d", r, e->peer);
            }
            if (is_call(t, e, "MPI_Sendrecv")) {
                sendrecv_halves++;
                CHECK(e->comm > CPT_COMM_SELF, "rank %d: Sendrecv on comm id %u, expected the dup", r, e->comm);
                CHECK(e->peer == ((e->flags & CPT_F_SECONDARY) ? (r + n - 1) % n : (r + 1) % n),
                      "rank %d: Sendrecv peer %d", r, e->peer);
                CHECK(e->bytes == 16, "rank %d: Sendrecv %llu bytes", r, (unsigned long long)e->bytes);
            }
        }
        CHECK(nids == 2 + 4 + 1, "rank %d: %d requests created, expected 7", r, nids);
        CHECK(starts == 10, "rank %d: %d Startall records, expected 10", r, starts);
        CHECK(sendrecv_halves == 2, "rank %d: %d Sendrecv records, expected 2", r, sendrecv_halves);
        for (int k = 0; k < nids; k++)
            CHECK(completions[k] == (persistent[k] ? 5 : 1), "rank %d: request %u completed %d times", r, ids[k],
                  completions[k]);
    }
}

static void check_pcontrol(cpt_trace *tr, int n)
{
    for (int r = 0; r < n; r++) {
        cpt_trace *t = &tr[r];
        check_common(t, r, n);
        int tagged1 = 0, pc = 0;
        for (size_t i = 0; i < t->n_events; i++) {
            const cpt_event *e = &t->events[i];
            CHECK(e->tag != 99, "rank %d: a record made while paused (%s)", r, cpt_call_name(t, e->call));
            if (is_call(t, e, "MPI_Sendrecv_replace") && !(e->flags & CPT_F_SECONDARY) && e->tag == 1) tagged1++;
            if (is_call(t, e, "MPI_Pcontrol")) {
                CHECK(e->tag == pc, "rank %d: Pcontrol record %d has level %d", r, pc, e->tag);
                pc++;
            }
        }
        int peer_exists = (r ^ 1) < n;
        CHECK(tagged1 == (peer_exists ? 3 : 0), "rank %d: %d exchanges after Pcontrol(1)", r, tagged1);
        CHECK(pc == 2, "rank %d: %d Pcontrol records", r, pc);
    }
}

/* poll_fold.c with its default 100000: the folds it must leave, in file order
 * (FORMAT.md, CPT_F_FOLDED).  One loop may still give several records when its
 * time does not fit one record (folds close before the sum of durations would
 * saturate 32 bits: slow polls under an oversubscribed MPI): such records are
 * merged here, and only when the first one was really full. */
static uint64_t calls_of(const cpt_event *e)
{
    return (e->flags & CPT_F_FOLDED) ? cpt_fold_count(e) : 1;
}

/* A probe that succeeded: it names the matched source (poll_fold.c probes
 * MPI_ANY_SOURCE); its bytes are 0, a probe moves nothing. */
static int found_message(const cpt_event *e)
{
    return e->peer >= 0 && !(e->flags & CPT_F_FOLDED);
}

static int continues_full_fold(const cpt_event *prev, const cpt_event *e)
{
    uint64_t longest = (e->flags & CPT_F_FOLDED) ? cpt_fold_max_ns(e) : e->duration_ns;
    return prev && prev->call == e->call && prev->tag == e->tag && prev->peer == e->peer &&
           (uint64_t)prev->duration_ns + longest >= UINT32_MAX;
}

static void check_fold(cpt_trace *tr, int n, const char *dir)
{
    uint64_t iprobe_calls = 0;
    for (int r = 0; r < n; r++) {
        cpt_trace *t = &tr[r];
        check_common(t, r, n);
        enum { MAXF = 64 };
        int tags[MAXF];
        uint64_t counts[MAXF];
        int nf = 0, success = 0, records = 0, loops_testall = 0, loops_test = 0;
        uint64_t testall = 0, test = 0;
        const cpt_event *prev = NULL;
        for (size_t i = 0; i < t->n_events; i++) {
            const cpt_event *e = &t->events[i];
            records++;
            int cont = continues_full_fold(prev, e);
            if (e->flags & CPT_F_FOLDED) {
                uint64_t c = cpt_fold_count(e);
                CHECK(c >= 2, "rank %d: a fold of %llu calls", r, (unsigned long long)c);
                CHECK(cpt_fold_min_ns(e) <= cpt_fold_max_ns(e) && (uint64_t)cpt_fold_min_ns(e) * c <= e->duration_ns &&
                      e->duration_ns <= (uint64_t)cpt_fold_max_ns(e) * c,
                      "rank %d: fold of %llu calls: min %u, max %u, total %u ns do not fit", r,
                      (unsigned long long)c, cpt_fold_min_ns(e), cpt_fold_max_ns(e), e->duration_ns);
            }
            if (is_call(t, e, "MPI_Iprobe")) {
                iprobe_calls += calls_of(e);
                if (found_message(e)) {
                    CHECK(e->bytes == 0 && e->tag == 7, "rank %d: successful Iprobe of %llu bytes, tag %d", r,
                          (unsigned long long)e->bytes, e->tag);
                    success++;
                } else if (cont && nf) {
                    counts[nf - 1] += calls_of(e);
                } else if (nf < MAXF) {
                    CHECK(!(nf && prev && prev->call == e->call && prev->tag == e->tag && !found_message(prev)),
                          "rank %d: two Iprobe records of tag %d in a row: the fold broke", r, e->tag);
                    tags[nf] = e->tag;
                    counts[nf++] = calls_of(e);
                }
            }
            if (is_call(t, e, "MPI_Testall") && !(e->flags & CPT_F_COMPLETION)) {
                testall += calls_of(e);
                loops_testall += !cont;
            }
            if (is_call(t, e, "MPI_Test") && !(e->flags & CPT_F_COMPLETION)) {
                test += calls_of(e);
                loops_test += !cont;
            }
            prev = e;
        }
        CHECK(nf >= 6, "rank %d: %d unsuccessful Iprobe records", r, nf);
        if (nf >= 6) {
            CHECK(tags[0] == 7 && counts[0] == 100000, "rank %d: first fold: tag %d, %llu calls (expected 7, 100000)",
                  r, tags[0], (unsigned long long)counts[0]);
            CHECK(tags[1] == 7 && counts[1] == 10, "rank %d: after Comm_rank: tag %d, %llu calls (expected 7, 10)",
                  r, tags[1], (unsigned long long)counts[1]);
            CHECK(tags[2] == 8 && counts[2] == 5, "rank %d: tag 8: %d, %llu calls", r, tags[2], (unsigned long long)counts[2]);
            CHECK(tags[3] == 9 && counts[3] == 7 && tags[4] == 9 && counts[4] == 7,
                  "rank %d: Pcontrol did not split the tag-9 polls into 7 + 7 (%d:%llu, %d:%llu)", r, tags[3],
                  (unsigned long long)counts[3], tags[4], (unsigned long long)counts[4]);
            CHECK(tags[nf - 1] == 7 && counts[nf - 1] == 3, "rank %d: last fold: tag %d, %llu calls (expected 7, 3)", r,
                  tags[nf - 1], (unsigned long long)counts[nf - 1]);
        }
        CHECK(success == 1, "rank %d: %d successful Iprobe records", r, success);
        CHECK(testall == 50000 && loops_testall == 1, "rank %d: Testall: %llu calls in %d folds (expected 50000 in 1)",
              r, (unsigned long long)testall, loops_testall);
        CHECK(test == 20000 && loops_test == 1, "rank %d: Test: %llu calls in %d folds (expected 20000 in 1)", r,
              (unsigned long long)test, loops_test);
        CHECK(records < 200, "rank %d: %d records for ~170000 calls", r, records);
        /* the file: ten times smaller than one record per call, at least */
        char path[4096];
        snprintf(path, sizeof path, "%s/%d.cpt", dir, r);
        FILE *f = fopen(path, "rb");
        long size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
        if (f) fclose(f);
        long unfolded = 170000L * (long)sizeof(cpt_event);
        CHECK(size > 0 && size * 10 <= unfolded, "rank %d: %ld bytes; one record per call would be %ld", r, size,
              unfolded);
    }
    printf("iprobe_calls=%llu\n", (unsigned long long)iprobe_calls);
}

/* byte_counts.c: every call's bytes, where the MPI has the call (the _c forms
 * are MPI 4).  A probe records 0: the receive after it records the message. */
static void check_bytes(cpt_trace *tr, int n)
{
    static const struct { const char *call; int rank; unsigned long long bytes; int calls; } want[] = {
        {"MPI_Send", 0, 40, 4},          {"MPI_Probe", 1, 0, 1},     {"MPI_Iprobe", 1, 0, -1},
        {"MPI_Mprobe", 1, 0, 1},         {"MPI_Improbe", 1, 0, -1},  {"MPI_Recv", 1, 40, 2},
        {"MPI_Mrecv", 1, 40, 2},         {"MPI_Reduce_scatter_block", -1, 12, 1},
        {"MPI_Reduce_scatter", -1, 12, 1}, {"MPI_Alltoallv", -1, 16, 1}, {"MPI_Alltoallw", -1, 6, 1},
        {"MPI_Allreduce_c", -1, 24, 0},  {"MPI_Reduce_scatter_block_c", -1, 8, 0},
    };
    for (int r = 0; r < n; r++) {
        cpt_trace *t = &tr[r];
        check_common(t, r, n);
        for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
            if (want[w].rank >= 0 && want[w].rank != r) continue;
            int id = call_id(t, want[w].call), calls = 0;
            if (id < 0) continue;      /* this MPI has no such function */
            for (size_t i = 0; i < t->n_events; i++) {
                const cpt_event *e = &t->events[i];
                if (e->call != (uint32_t)id || (e->flags & CPT_F_FOLDED)) continue;
                CHECK(e->bytes == want[w].bytes, "rank %d: %s recorded %llu bytes, expected %llu", r,
                      want[w].call, (unsigned long long)e->bytes, want[w].bytes);
                calls++;
            }
            CHECK(want[w].calls < 0 || calls == want[w].calls || (want[w].calls == 0 && calls <= 1),
                  "rank %d: %d %s records, expected %d", r, calls, want[w].call, want[w].calls);
        }
    }
}

/* thread_multiple.c with its default 4000 iterations on 2 ranks: per rank, 3
 * threads each on its own communicator, 4000 sends, 4000 receives and 1000
 * allreduces; the records of each thread in their own blocks, merged. */
static void check_thread_multiple(cpt_trace *tr, int n)
{
    enum { THREADS = 3, ITERS = 4000, ALLREDUCES = 1000 };
    for (int r = 0; r < n; r++) {
        cpt_trace *t = &tr[r];
        check_common(t, r, n);
        /* thread 0 called MPI_Init; the three workers are 1..3 */
        CHECK(t->n_threads == THREADS + 1, "rank %d: records of %u threads, expected %d", r, t->n_threads,
              THREADS + 1);
        int send = call_id(t, "MPI_Send"), recv = call_id(t, "MPI_Recv"), allr = call_id(t, "MPI_Allreduce");
        int sends[8] = {0}, recvs[8] = {0}, allrs[8] = {0}, bad = 0, unordered = 0;
        for (size_t i = 0; i < t->n_events; i++) {
            const cpt_event *e = &t->events[i];
            if (i && e->start_ns < t->events[i - 1].start_ns) unordered++;
            if (e->call != send && e->call != recv && e->call != allr) continue;
            /* the three communicators are the first after world and self */
            uint32_t k = e->comm - 3;
            if (k >= THREADS || e->tag != (e->call == allr ? CPT_TAG_NONE : 7) ||
                (e->call != allr && e->peer != 1 - r) || e->bytes != sizeof(int)) {
                bad++;
                continue;
            }
            (e->call == send ? sends : e->call == recv ? recvs : allrs)[k]++;
        }
        CHECK(bad == 0, "rank %d: %d garbled records", r, bad);
        CHECK(unordered == 0, "rank %d: %d records out of time order after the merge", r, unordered);
        for (int k = 0; k < THREADS; k++)
            CHECK(sends[k] == ITERS && recvs[k] == ITERS && allrs[k] == ALLREDUCES,
                  "rank %d, communicator %d: %d sends, %d receives, %d allreduces; expected %d, %d, %d", r, k + 3,
                  sends[k], recvs[k], allrs[k], ITERS, ITERS, ALLREDUCES);
        CHECK(t->have_counters && t->counters.dropped == 0, "rank %d: %llu records dropped", r,
              (unsigned long long)t->counters.dropped);
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: check_trace ring|allreduce|anysource|requests|killed|segv|pcontrol|thread_multiple|fold|bytes DIR NPROCS\n");
        return 2;
    }
    const char *mode = argv[1];
    int n = atoi(argv[3]);
    cpt_trace *tr;
    int got;
    char err[1024];
    if (cpt_read_dir(argv[2], &tr, &got, err, sizeof err) != 0) {
        fprintf(stderr, "check_trace: %s\n", err);
        return 1;
    }
    CHECK(got == n, "%d trace files for %d ranks", got, n);
    if (got == n) {
        if (!strcmp(mode, "ring")) check_ring(tr, n);
        else if (!strcmp(mode, "allreduce")) check_allreduce(tr, n);
        else if (!strcmp(mode, "anysource")) check_anysource(tr, n);
        else if (!strcmp(mode, "killed")) check_killed(tr, n);
        else if (!strcmp(mode, "pcontrol")) check_pcontrol(tr, n);
        else if (!strcmp(mode, "segv")) check_segv(tr, n);
        else if (!strcmp(mode, "requests")) check_requests(tr, n);
        else if (!strcmp(mode, "thread_multiple")) check_thread_multiple(tr, n);
        else if (!strcmp(mode, "fold")) check_fold(tr, n, argv[2]);
        else if (!strcmp(mode, "bytes")) check_bytes(tr, n);
        else { fprintf(stderr, "check_trace: unknown mode %s\n", mode); failures++; }
    }
    size_t events = 0;
    for (int r = 0; r < got; r++) events += tr[r].n_events;
    cpt_free_dir(tr, got);
    if (failures) {
        fprintf(stderr, "check_trace %s: %d failure(s)\n", mode, failures);
        return 1;
    }
    printf("check_trace %s: ok (%d ranks, %zu events)\n", mode, n, events);
    return 0;
}
