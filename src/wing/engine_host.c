/*
 * engine_host.c -- what src/coll/direct needs from the rest of corempi,
 * provided over a host MPI (docs/wing.md, "The seam").  The engine's own
 * files are compiled unchanged; these stand in for corempi's process state,
 * its argument-agreement records, its deadlock watch and its progress
 * engine, none of which exist inside another MPI's process.
 */
#include "wing/wing.h"
#include "coll/direct/await.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cm_state cm_g;

/* Argument agreement: the host checks no collective's arguments, and the
 * wing keeps the engine's words at 0 on every rank (cm_direct_word is never
 * set), so every word agrees and no mismatch is recorded. */
CM_THREAD_LOCAL uint32_t cm_direct_word;
CM_THREAD_LOCAL struct cm_direct_mismatch cm_direct_mm;
CM_THREAD_LOCAL unsigned cm_direct_class_here;
CM_THREAD_LOCAL struct cm_direct *cm_direct_recent;

int cm_direct_words_agree(uint32_t a, uint32_t b) { return a == b; }
void cm_direct_mismatch_seen(int peer, uint32_t mine, uint32_t theirs)
{
    if (cm_direct_mm.on)
        return;
    cm_direct_mm.on = 1;
    cm_direct_mm.peer = peer;
    cm_direct_mm.mine = mine;
    cm_direct_mm.theirs = theirs;
}
void cm_direct_classes_seen(int peer, unsigned mine, unsigned theirs)
{
    cm_direct_mismatch_seen(peer, mine, theirs);
}
int cm_coll_mismatch_raise(MPI_Comm comm, const char *call)
{
    cm_fatal(call, "rank %d's arguments differ from this rank's (corempi's shared-memory collectives, "
             "docs/wing.md)", cm_direct_mm.peer);
}

/* No FIFO divergence to look for (words always agree), no point-to-point
 * blocks of the engine's own in flight. */
int cm_direct_fifo_ahead(struct cm_direct *s, uint32_t word, int *peer, uint32_t *theirs) { return 0; }
int cm_direct_peer_sent(struct cm_direct *s, int peer, uint32_t *theirs) { return 0; }
void cm_direct_drop_sent(struct cm_direct *s, int peer) { }

/* No deadlock watch, no progress engine of ours: a waiter naps on its futex
 * word and looks again (the host's pending messages progress at its next
 * host call). */
void cm_direct_announce_blocked(int blocked) { }
int cm_direct_backoff_when_oversubscribed(void) { return cm_config_flag(COREMPI_SHM_BACKOFF, 1); }
const struct timespec cm_direct_long_nap = { 0, 200 * 1000000L };
const struct timespec *cm_direct_progress_pending(const struct timespec *normal) { return normal; }
void cm_direct_nbc_drain(struct cm_direct *s) { }

_Noreturn void cm_fatal(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "corempi wing: %s: ", call);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    abort();
}

void cm_env_warn(const char *name, const char *value, const char *why, ...)
{
    va_list ap;
    va_start(ap, why);
    fprintf(stderr, "corempi wing: %s=%s ", name, value);
    vfprintf(stderr, why, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* area.c's sizes, from the same variables. */
static size_t slot_default(void) { return (cm_config_size(COREMPI_SHM_SLOT, 256 * 1024) + 63) & ~(size_t)63; }
size_t cm_wing_slot_bytes(void) { return slot_default(); }
size_t cm_direct_chunk(void)
{
    size_t v = cm_config_size(COREMPI_SHM_CHUNK, 64 * 1024);
    return v ? v : 65536;
}
/* No single-copy reads: another MPI's processes need not allow them. */
size_t cm_direct_cma_min(void) { return SIZE_MAX; }
int cm_direct_chunked(const struct cm_direct *s, size_t bytes) { return bytes > s->slot_bytes; }

void cm_coll_dt(MPI_Datatype dt, struct cm_dt *d)
{
    const struct cm_datatype *t = cm_wing_dt(dt);
    d->lb = t->lb;
    d->extent = t->extent;
    d->true_lb = t->true_lb;
    d->true_extent = t->true_extent;
    d->size = (int)t->size;
}

struct cm_comm *cm_comm_lookup(MPI_Comm h, uint16_t *ctx)
{
    static CM_THREAD_LOCAL struct cm_comm c;
    PMPI_Comm_size(h, &c.size);
    return &c;
}

/* Pieces of a packed vector: the whole packed by the host, then the piece. */
static size_t pack_whole(const void *buf, int count, MPI_Datatype dt, char **out)
{
    int bytes = 0, pos = 0;
    PMPI_Pack_size(count, dt, MPI_COMM_SELF, &bytes);
    *out = malloc(bytes ? (size_t)bytes : 1);
    if (!*out)
        cm_fatal("MPI collective", "out of memory packing %d bytes", bytes);
    if (buf)
        PMPI_Pack(buf, count, dt, *out, bytes, &pos, MPI_COMM_SELF);
    return (size_t)bytes;
}

size_t cm_dt_pack_range(const void *buf, int count, const struct cm_datatype *t, size_t off, void *out, size_t len)
{
    char *all;
    pack_whole(buf, count, t->handle, &all);
    memcpy(out, all + off, len);
    free(all);
    return len;
}

size_t cm_dt_unpack_range(const void *in, size_t len, void *buf, int count, const struct cm_datatype *t, size_t off)
{
    char *all;
    size_t bytes = pack_whole(buf, count, t->handle, &all);   /* the rest of buf as it is */
    memcpy(all + off, in, len);
    int pos = 0;
    PMPI_Unpack(all, (int)bytes, &pos, buf, count, t->handle, MPI_COMM_SELF);
    free(all);
    return len;
}
