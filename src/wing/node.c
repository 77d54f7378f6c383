/*
 * node.c -- the node's shared segment, found and shared through the host
 * (docs/wing.md, "Set-up").  At MPI_Init the node's ranks are the host's
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) of MPI_COMM_WORLD.  The node's
 * first rank creates an anonymous memfd (no name anywhere: nothing can
 * outlive the job, whatever way it ends), the others open it through
 * /proc/<pid>/fd (or pidfd_getfd), map it, and the creator closes its fd
 * once all have it.  Its pages are touched only when an area uses them.
 */
#include "wing/wing.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 1 GiB of address space: 8-rank areas are ~5 MiB, so hundreds of
 * communicators fit; only used pages cost memory. */
#define SEG_BYTES ((size_t)1 << 30)
#define UNITS (SEG_BYTES / CM_WING_UNIT)

struct seg_header {
    _Alignas(64) _Atomic uint32_t lock;
    uint32_t oversubscribed;        /* the creator's verdict, the same for every member */
    _Atomic uint64_t bitmap[UNITS / 64];   /* 1 = unit in use; unit 0 holds this header */
};
_Static_assert(sizeof(struct seg_header) <= CM_WING_UNIT, "the header fits unit 0");

int cm_wing_on, cm_wing_hier_on, cm_wing_node_id = -1;
static char *seg;
static MPI_Comm node = MPI_COMM_NULL;
static MPI_Group node_group = MPI_GROUP_NULL;
static int verbose;

void cm_wing_say(const char *fmt, ...)
{
    if (!verbose)
        return;
    int r = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    /* One write per note: the ranks' notes share a stream and must not mix. */
    char line[512];
    int k = snprintf(line, sizeof line, "corempi wing: rank %d: ", r);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + k, sizeof line - (size_t)k - 1, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    fputs(line, stderr);
}

void cm_wing_declined(const char *call, const char *why)
{
    /* Once per (call, reason): both are string constants, so their
     * addresses name the pair. */
    static const char *seen[64][2];
    static int nseen;
    for (int i = 0; i < nseen; i++)
        if (seen[i][0] == call && seen[i][1] == why)
            return;
    if (nseen < 64) {
        seen[nseen][0] = call;
        seen[nseen][1] = why;
        nseen++;
    }
    cm_wing_say("%s: %s: the host MPI's own collective serves it", call, why);
}

/* The node's cores this job may use: the union of its ranks' affinity masks
 * (Open MPI binds each rank to one core: its own mask says 1).  A
 * collective over the node: every member gets the same answer. */
static int node_cpus(MPI_Comm node)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long i = 0; i < n && i < CPU_SETSIZE; i++)
            CPU_SET((int)i, &set);
    }
    PMPI_Allreduce(MPI_IN_PLACE, &set, (int)sizeof set, MPI_BYTE, MPI_BOR, node);
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

/* The creator's fd in this process: /proc first, else pidfd_getfd (both
 * need the same user, as any two ranks of one job are). */
static int open_peer_fd(long pid, long fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/%ld", pid, fd);
    int f = open(path, O_RDWR | O_CLOEXEC);
    if (f >= 0)
        return f;
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    int pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
    if (pfd >= 0) {
        f = (int)syscall(SYS_pidfd_getfd, pfd, (int)fd, 0);
        close(pfd);
    }
#endif
    return f;
}

static char *create(void)
{
    int fd = (int)syscall(SYS_memfd_create, "corempi-wing", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)SEG_BYTES) != 0) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *p = mmap(NULL, SEG_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    /* Keep fd open until every member has its own (cm_wing_start). */
    ((struct seg_header *)p)->lock = (uint32_t)fd;   /* parked here, cleared before use */
    return p;
}

/* COREMPI_COLL_NODES=k: the node's ranks in k blocks of consecutive node
 * ranks, each a pretend node with its own segment, so that the
 * hierarchical paths across nodes (wing/hier.c) run on one machine. */
static void pretend_nodes(void)
{
    int k = cm_config_int(COREMPI_COLL_NODES, 1), me, n;
    if (k <= 1)
        return;
    PMPI_Comm_rank(node, &me);
    PMPI_Comm_size(node, &n);
    MPI_Comm sub;
    if (PMPI_Comm_split(node, (int)((long)me * k / n), me, &sub) == MPI_SUCCESS) {
        PMPI_Comm_free(&node);
        node = sub;
    }
}

static void start_node(int thread_level)
{
    cm_config_load();
    verbose = cm_config_verbose() != 0;
    if (!cm_config_flag(COREMPI_WING, 1)) {
        cm_wing_say("COREMPI_WING=0: every collective is the host MPI's");
        return;
    }
    if (thread_level == MPI_THREAD_MULTIPLE) {
        cm_wing_say("MPI_THREAD_MULTIPLE: every collective is the host MPI's (the wing serves one thread)");
        return;
    }
    if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS) {
        node = MPI_COMM_NULL;
        return;
    }
    pretend_nodes();
    PMPI_Comm_rank(MPI_COMM_WORLD, &cm_wing_node_id);
    PMPI_Bcast(&cm_wing_node_id, 1, MPI_INT, 0, node);
    int me, n;
    PMPI_Comm_rank(node, &me);
    PMPI_Comm_size(node, &n);
    /* [0] the creator's pid (-1: it failed), [1] its fd, [2] oversubscribed. */
    long msg[3] = { -1, -1, n > node_cpus(node) };
    if (me == 0 && (seg = create()) != NULL) {
        msg[0] = (long)getpid();
        msg[1] = (long)((struct seg_header *)seg)->lock;
    }
    PMPI_Bcast(msg, 3, MPI_LONG, 0, node);
    int ok = msg[0] >= 0;
    if (ok && me != 0) {
        int fd = open_peer_fd(msg[0], msg[1]);
        seg = fd >= 0 ? mmap(NULL, SEG_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
        if (fd >= 0)
            close(fd);
        if (seg == MAP_FAILED) {
            seg = NULL;
            cm_wing_say("cannot open the node's segment from rank 0 of the node (pid %ld): %s", msg[0],
                        strerror(errno));
        }
    }
    int all = seg != NULL, every = 0;
    PMPI_Allreduce(&all, &every, 1, MPI_INT, MPI_LAND, node);
    if (me == 0 && seg) {
        struct seg_header *h = (struct seg_header *)seg;
        close((int)h->lock);
        h->oversubscribed = (uint32_t)msg[2];
        atomic_store(&h->lock, 0);
        atomic_store(&h->bitmap[0], 1);     /* unit 0: the header */
    }
    PMPI_Barrier(node);                     /* the header is ready before anyone takes units */
    if (!every) {
        if (seg)
            munmap(seg, SEG_BYTES);
        seg = NULL;
        cm_wing_say("no shared segment on this node: every collective is the host MPI's");
        return;
    }
    PMPI_Comm_group(node, &node_group);
    cm_g.oversubscribed = (int)msg[2];
    cm_g.world_size = n;
    cm_g.verbose = verbose ? CM_VERBOSE_COLL : 0;
    cm_wing_on = 1;
    cm_wing_say("serving collectives from corempi's shared-memory engine (%d ranks on this node%s)", n,
                msg[2] ? ", oversubscribed" : "");
}

void cm_wing_start(int thread_level)
{
    start_node(thread_level);
    /* Across nodes every member must take the same way, so the
     * hierarchical paths need the engine on every node of the job. */
    int on = cm_wing_on && node != MPI_COMM_NULL;
    PMPI_Allreduce(&on, &cm_wing_hier_on, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
}

void cm_wing_stop(void)
{
    cm_wing_on = 0;
    if (node_group != MPI_GROUP_NULL)
        PMPI_Group_free(&node_group);
    if (node != MPI_COMM_NULL)
        PMPI_Comm_free(&node);
    /* The mapping goes with the process; the memfd with its last mapping. */
}

char *cm_wing_base(void) { return seg; }

int cm_wing_node_rank(MPI_Comm comm, int rank)
{
    MPI_Group g;
    int out = MPI_UNDEFINED;
    PMPI_Comm_group(comm, &g);
    PMPI_Group_translate_ranks(g, 1, &rank, node_group, &out);
    PMPI_Group_free(&g);
    return out == MPI_UNDEFINED ? -1 : out;
}

static void lock(struct seg_header *h)
{
    uint32_t z = 0;
    while (!atomic_compare_exchange_weak_explicit(&h->lock, &z, 1, memory_order_acquire, memory_order_relaxed)) {
        z = 0;
        sched_yield();
    }
}
static void unlock(struct seg_header *h) { atomic_store_explicit(&h->lock, 0, memory_order_release); }

static int used(struct seg_header *h, size_t u) { return (atomic_load_explicit(&h->bitmap[u / 64], memory_order_relaxed) >> (u % 64)) & 1; }
static void mark(struct seg_header *h, size_t u, int on)
{
    uint64_t bit = (uint64_t)1 << (u % 64);
    if (on)
        atomic_fetch_or_explicit(&h->bitmap[u / 64], bit, memory_order_relaxed);
    else
        atomic_fetch_and_explicit(&h->bitmap[u / 64], ~bit, memory_order_relaxed);
}

long cm_wing_take(size_t bytes)
{
    struct seg_header *h = (struct seg_header *)seg;
    size_t need = (bytes + CM_WING_UNIT - 1) / CM_WING_UNIT, run = 0;
    long got = -1;
    lock(h);
    for (size_t u = 1; u < UNITS && got < 0; u++) {
        run = used(h, u) ? 0 : run + 1;
        if (run == need) {
            size_t first = u + 1 - need;
            for (size_t k = first; k <= u; k++)
                mark(h, k, 1);
            got = (long)(first * CM_WING_UNIT);
        }
    }
    unlock(h);
    return got;
}

void cm_wing_give(long off, size_t bytes)
{
    struct seg_header *h = (struct seg_header *)seg;
    size_t first = (size_t)off / CM_WING_UNIT, need = (bytes + CM_WING_UNIT - 1) / CM_WING_UNIT;
    /* The pages go back to the kernel: a later area starts from zeros, and
     * an idle job holds no memory. */
    madvise(seg + off, need * CM_WING_UNIT, MADV_REMOVE);
    lock(h);
    for (size_t k = first; k < first + need; k++)
        mark(h, k, 0);
    unlock(h);
}
