/*
 * cpt_format.h -- the coreprof trace file format (".cpt"), version 2.
 *
 * One file per rank: DIR/<world rank>.cpt.  Layout (all integers little-endian,
 * the machine's native order on x86-64/aarch64; the reader rejects other orders):
 *
 *   cpt_file_header                      (CPT_FILE_HEADER_SIZE bytes)
 *   block*                               each: cpt_block_header + payload
 *
 * Block kinds:
 *   CPT_BLOCK_EVENTS  payload = count * cpt_event   (one flushed buffer half)
 *   CPT_BLOCK_META    payload = a sequence of TLV sections (cpt_meta_section)
 *                     written once at MPI_Init (call names, host, binding, objects,
 *                     clock offset) and once at MPI_Finalize (everything again,
 *                     plus the communicator table and counters); later wins.
 *   CPT_BLOCK_END     no payload: the end marker.  A file without it is
 *                     "incomplete" (the rank crashed or was killed).
 *   CPT_BLOCK_SUMMARY (version 2, summary mode) payload = count * cpt_summary_entry,
 *                     instead of EVENTS blocks, written at MPI_Finalize.
 *
 * Every block is written with a single write() so a killed rank leaves whole
 * blocks behind; the checksum catches the rest.  See FORMAT.md for the prose.
 */
#ifndef CPT_FORMAT_H
#define CPT_FORMAT_H

#include <stdint.h>
#include <stddef.h>

#define CPT_MAGIC          "CPT1"
#define CPT_VERSION        2    /* 2: folded polls, summary mode; readers accept 1 too */
#define CPT_VERSION_MIN    1
#define CPT_BLOCK_MAGIC    0x4B4C4254u /* "TBLK" read as little-endian bytes */
#define CPT_ENDIAN_CHECK   0x01020304u

#define CPT_FILE_HEADER_SIZE 128
#define CPT_IMPL_NAME_MAX    64

/* File header: fixed size so a reader can check it before anything else. */
typedef struct cpt_file_header {
    char     magic[4];           /* "CPT1" */
    uint16_t version;            /* CPT_VERSION */
    uint16_t header_size;        /* CPT_FILE_HEADER_SIZE */
    uint32_t endian_check;       /* CPT_ENDIAN_CHECK */
    uint32_t record_size;        /* sizeof(cpt_event) == 48 */
    int32_t  rank;               /* world rank of the writer */
    int32_t  world_size;
    uint64_t clock_resolution_ns;/* clock_getres(CLOCK_MONOTONIC) */
    uint64_t start_ns;           /* local clock when the profiler started */
    uint32_t clock_source;       /* CPT_CLOCK_* */
    uint32_t mode;               /* CPT_MODE_*: 0 in version 1 files */
    char     impl_name[CPT_IMPL_NAME_MAX]; /* "corempi 0.1.0", "Open MPI v4.1.4"... NUL-terminated */
    uint32_t reserved1[3];
    uint32_t header_checksum;    /* cpt_checksum over the first 124 bytes */
} cpt_file_header;

#define CPT_CLOCK_MONOTONIC 1    /* clock_gettime(CLOCK_MONOTONIC), ns */

/* What the file holds: every call (EVENTS blocks) or statistics only (SUMMARY blocks). */
#define CPT_MODE_TRACE   0
#define CPT_MODE_SUMMARY 1

/* Block header: 24 bytes, payload follows immediately. */
typedef struct cpt_block_header {
    uint32_t magic;              /* CPT_BLOCK_MAGIC */
    uint32_t kind;               /* CPT_BLOCK_* */
    uint32_t seq;                /* 0,1,2,... per file, in file order */
    uint32_t count;              /* EVENTS: number of records; META: number of sections; END: 0 */
    uint32_t payload_bytes;      /* multiple of 8; EVENTS: count * 48 */
    uint32_t checksum;           /* cpt_checksum(payload, payload_bytes) */
} cpt_block_header;

enum cpt_block_kind {
    CPT_BLOCK_EVENTS = 1,
    CPT_BLOCK_META   = 2,
    CPT_BLOCK_END    = 3,
    CPT_BLOCK_SUMMARY = 4,   /* payload = count * cpt_summary_entry (summary mode, at Finalize) */
};

/* An EVENTS block holds the records of one thread of the rank: the thread's
 * number (0: the thread that called MPI_Init, then 1, 2... in the order the
 * threads first recorded) is in the high 16 bits of `kind`, so the files of
 * single-threaded programs are unchanged.  Each thread's records are in time
 * order; the blocks of different threads interleave. */
#define CPT_BLOCK_THREAD_SHIFT 16
static inline uint32_t cpt_block_kind(uint32_t kind)   { return kind & 0xffffu; }
static inline uint32_t cpt_block_thread(uint32_t kind) { return kind >> CPT_BLOCK_THREAD_SHIFT; }

/* A block is never larger than this; a header claiming more is corruption. */
#define CPT_MAX_BLOCK_PAYLOAD (64u << 20)

/* ---- event records --------------------------------------------------- */

/* One MPI call (or one completion, or one flush).  Exactly 48 bytes. */
typedef struct cpt_event {
    uint64_t start_ns;     /* local CLOCK_MONOTONIC at entry; add the clock offset for rank 0's timeline */
    uint64_t bytes;        /* payload bytes: count * type size (send side, or matched size for completions) */
    uint64_t caller;       /* __builtin_return_address(0) of the MPI call: resolve with the object table */
    uint32_t duration_ns;  /* saturates at UINT32_MAX (flag CPT_F_DURATION_SAT) */
    int32_t  peer;         /* world rank (or comm-local rank if CPT_F_PEER_LOCAL); -1 none; for rooted collectives the root */
    int32_t  tag;          /* tag, or CPT_TAG_NONE */
    uint32_t comm;         /* profiler communicator id (see comm table); 0 = none */
    uint32_t request;      /* profiler request id pairing an initiation with its completion; 0 = none */
    uint16_t call;         /* call id: CPT_CALL_* or an MPI call (see call-name table) */
    uint16_t flags;        /* CPT_F_* */
} cpt_event;

#define CPT_TAG_NONE   INT32_MIN
#define CPT_PEER_NONE  (-1)
/* MPI_ANY_SOURCE / MPI_PROC_NULL are MPI-specific values; the profiler maps them to: */
#define CPT_PEER_ANY       (-2)
#define CPT_PEER_PROC_NULL (-3)

enum cpt_event_flags {
    CPT_F_COMPLETION   = 1u << 0,  /* completion of a nonblocking/persistent request (in Wait/Test...) */
    CPT_F_COLLECTIVE   = 1u << 1,  /* a collective call */
    CPT_F_ERROR        = 1u << 2,  /* the call returned != MPI_SUCCESS */
    CPT_F_NONBLOCKING  = 1u << 3,  /* initiation of a nonblocking/persistent op: `request` is set */
    CPT_F_SEND         = 1u << 4,  /* peer is a destination */
    CPT_F_RECV         = 1u << 5,  /* peer is a source (matched source once known) */
    CPT_F_ROOT         = 1u << 6,  /* peer is the collective's root */
    CPT_F_SECONDARY    = 1u << 7,  /* second record of one call (the receive half of Sendrecv) */
    CPT_F_PEER_LOCAL   = 1u << 8,  /* peer could not be translated: it is the comm-local rank */
    CPT_F_DURATION_SAT = 1u << 9,  /* duration_ns saturated */
    CPT_F_FLUSH_WAITED = 1u << 10, /* flush: both halves were full, the program waited duration_ns */
    CPT_F_CANCELLED    = 1u << 11, /* completion of a cancelled request */
    CPT_F_PERSISTENT_INIT = 1u << 12, /* Send_init/Recv_init...: sets up a request, moves no data (Start does) */
    CPT_F_FOLDED       = 1u << 13, /* consecutive unsuccessful polls with the same arguments: see below */
};

/* A FOLDED record stands for n >= 2 consecutive calls of one poll (Iprobe,
 * Improbe, Test, Testany, Testall, Testsome, Request_get_status) from one call
 * site with the same arguments, none of which succeeded, with no other record
 * between them.  start_ns is the first call's entry, duration_ns the SUM of the
 * n durations (a fold closes before the sum would saturate), and two fields
 * that an unsuccessful poll leaves empty carry the rest:
 *   bytes   = n (low 32 bits) | shortest call in ns (high 32 bits, saturating)
 *   request = longest call in ns (saturating)                                  */
static inline uint32_t cpt_fold_count(const cpt_event *e)  { return (uint32_t)e->bytes; }
static inline uint32_t cpt_fold_min_ns(const cpt_event *e) { return (uint32_t)(e->bytes >> 32); }
static inline uint32_t cpt_fold_max_ns(const cpt_event *e) { return e->request; }
static inline uint64_t cpt_fold_pack(uint32_t n, uint32_t min_ns) { return (uint64_t)n | (uint64_t)min_ns << 32; }

/* What a record counts for in statistics: calls, bytes, shortest and longest call. */
static inline void cpt_event_counts(const cpt_event *e, uint64_t *calls, uint64_t *bytes, uint64_t *min_ns,
                                    uint64_t *max_ns)
{
    if (e->flags & CPT_F_FOLDED) {
        *calls = cpt_fold_count(e);
        *bytes = 0;
        *min_ns = cpt_fold_min_ns(e);
        *max_ns = cpt_fold_max_ns(e);
    } else {
        *calls = 1;
        *bytes = e->bytes;
        *min_ns = *max_ns = e->duration_ns;
    }
}

/* Flags that say what a record is (as opposed to how it was recorded): the
 * key of the statistics a summary-mode file keeps. */
#define CPT_F_KIND_MASK ((uint16_t)~(CPT_F_DURATION_SAT | CPT_F_FLUSH_WAITED | CPT_F_FOLDED))

/* Reserved call ids; MPI calls start at CPT_CALL_FIRST_MPI in the spec's order (spec/<chapter>.api, as src/prof/gen_wrappers.py lists them).
 * The file's call-name table is the authority: readers must not hard-code MPI ids. */
enum cpt_call_id {
    CPT_CALL_NONE  = 0,
    CPT_CALL_FLUSH = 1,   /* start = hand-off time, bytes = bytes handed over, tag = block seq,
                             duration = time waited for a free half (0 if none) */
    CPT_CALL_FIRST_MPI = 16,
};

/* ---- metadata sections (payload of a META block) --------------------- */

/* Each section: this 8-byte header, then `length` bytes, then zero padding to a multiple of 8. */
typedef struct cpt_meta_section {
    uint32_t type;   /* CPT_META_* */
    uint32_t length; /* bytes of data after this header, before padding */
} cpt_meta_section;

enum cpt_meta_type {
    CPT_META_CLOCK    = 1, /* int64 offset_ns (rank0_time = local_time + offset), uint64 rtt_ns (uncertainty), uint64 measured_at_ns */
    CPT_META_BINDING  = 2, /* int32 cpu (sched_getcpu, -1 unknown), uint32 mask_bytes, mask bytes (cpu_set_t bit order) */
    CPT_META_HOST     = 3, /* hostname, NUL-terminated */
    CPT_META_PID      = 4, /* int64 pid */
    CPT_META_OBJECT   = 5, /* uint64 start, uint64 end, uint64 file_offset, path NUL-terminated (one per mapping) */
    CPT_META_CALLNAME = 6, /* uint16 id, uint16 0, name NUL-terminated ("MPI_Send") */
    CPT_META_COMM     = 7, /* uint32 id, int32 size, int32 remote_size (0 = intracomm), int32 world_ranks[size + remote_size] */
    CPT_META_COUNTERS = 8, /* uint64 records, uint64 flushes, uint64 flush_waits, uint64 dropped, uint64 wait_ns */
    CPT_META_PHASE    = 9, /* uint32 CPT_PHASE_INIT / CPT_PHASE_FINALIZE, uint32 0 */
    CPT_META_RUN      = 10, /* uint64 MPI_Init entry (local ns), uint64 MPI_Finalize exit (0 = not yet) */
};

/* ---- summary mode ---------------------------------------------------- */

/* Statistics of all calls with one key (call, kind flags, communicator, peer,
 * size class, call site).  Exactly 64 bytes.  Folded polls count as their n calls. */
typedef struct cpt_summary_entry {
    uint64_t calls;
    uint64_t total_ns;
    uint64_t bytes;        /* sum over the calls */
    uint64_t caller;       /* return address, as in cpt_event */
    uint64_t min_ns, max_ns;
    int32_t  peer;         /* as in cpt_event */
    uint32_t comm;         /* profiler communicator id */
    uint16_t call;
    uint16_t flags;        /* cpt_event flags & CPT_F_KIND_MASK */
    uint8_t  size_bin;     /* 0: 0 bytes; k: [2^(k-1), 2^k) bytes per call */
    uint8_t  reserved[3];
} cpt_summary_entry;

static inline unsigned cpt_size_bin(uint64_t bytes)
{
    return bytes == 0 ? 0u : 64u - (unsigned)__builtin_clzll(bytes);
}

enum cpt_phase { CPT_PHASE_INIT = 1, CPT_PHASE_FINALIZE = 2 };

/* Profiler communicator ids of the predefined communicators. */
#define CPT_COMM_WORLD 1
#define CPT_COMM_SELF  2

/* Checksum: FNV-1a style over little-endian 64-bit words (payload is a multiple of 8),
 * folded to 32 bits.  Fast enough for the writer thread; not cryptographic. */
static inline uint32_t cpt_checksum(const void *data, size_t nbytes)
{
    const unsigned char *p = (const unsigned char *)data;
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i = 0;
    for (; i + 8 <= nbytes; i += 8) {
        uint64_t w;
        __builtin_memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < nbytes; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return (uint32_t)(h ^ (h >> 32));
}

#define CPT_ALIGN8(n) (((n) + 7u) & ~(size_t)7u)

_Static_assert(sizeof(cpt_event) == 48, "cpt_event must be 48 bytes");
_Static_assert(sizeof(cpt_summary_entry) == 64, "cpt_summary_entry must be 64 bytes");
_Static_assert(sizeof(cpt_block_header) == 24, "cpt_block_header must be 24 bytes");
_Static_assert(sizeof(cpt_file_header) == CPT_FILE_HEADER_SIZE, "cpt_file_header size");
_Static_assert(offsetof(cpt_file_header, header_checksum) == CPT_FILE_HEADER_SIZE - 4, "checksum last");

#endif /* CPT_FORMAT_H */
