/*
 * mismatch.c -- the default check that the ranks of a collective agree on
 * its arguments: the argument word the shared-memory syncs carry (coll/direct/direct.h,
 * "argument agreement"), what a rank records when it sees another word, and
 * the error the front end raises from it.
 *
 * The word holds what every pair of ranks must agree on: the collective, the
 * op, the root and the bytes (count x type size) each rank moves per peer.
 * A field that differs names the argument; the bytes are exact below 2^14 and
 * hashed above, so two large counts are reported as different without the
 * other rank's value.  COREMPI_CHECK=1 (check.c) compares everything, type
 * signatures included, exactly.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/check.h"
#include "coll/direct/direct.h"
#include "coll/percomm.h"
#include "coll/p2p.h"
#include "core/comm.h"
#include "core/error.h"

#include <stdio.h>
#include <string.h>

CM_THREAD_LOCAL uint32_t cm_direct_word;
CM_THREAD_LOCAL struct cm_direct_mismatch cm_direct_mm;
CM_THREAD_LOCAL unsigned cm_direct_class_here;
CM_THREAD_LOCAL struct cm_direct_nbc_args cm_direct_nbc_next;

int cm_direct_words_agree(uint32_t a, uint32_t b)
{
    unsigned coll = cm_direct_word_coll(a);
    uint32_t field = cm_direct_class_field(coll), rootf = 0xffu << 9;
    if (a == b || !field || ((a & field) && (b & field)))
        return a == b;
    if (!cm_direct_typed_op(coll))
        return ((a ^ b) & ~field) == 0;
    /* The class-0 side x has root + 1 in its root field, the other, y, root
     * + 1 + the mixed class (direct.h, CM_DIRECT_CLASS_MIX_ROOTED) whose hash
     * it carries: they agree if such a class explains the difference (a word
     * rebuilt from a tag has the whole field: coll_entry.h). */
    uint32_t x = (a & field) ? b : a, y = (a & field) ? a : b;
    if ((a ^ b) & ~(field | rootf))
        return 0;
    unsigned d = ((y >> 9) - (x >> 9)) & 0xffu, hy = (y >> 5) & 15u;
    if (!hy)
        return d == 0;
    return cm_direct_class_hash((d * CM_DIRECT_CLASS_UNMIX_ROOTED) & 0xffu) == hy;
}

void cm_direct_mismatch_seen(int peer, uint32_t mine, uint32_t theirs)
{
    if (cm_direct_mm.on)
        return;
    cm_direct_mm.peer = peer;
    cm_direct_mm.mine = mine;
    cm_direct_mm.theirs = theirs;
    cm_direct_mm.on = 1;
    if (cm_coll_tag_word)
        cm_coll_tag_word = CM_COLL_TAG_POISON;   /* coll/p2p.h: tell the ranks downstream */
}

void cm_direct_classes_seen(int peer, unsigned mine, unsigned theirs)
{
    if (cm_direct_mm.on)
        return;
    cm_direct_mismatch_seen(peer, cm_direct_word, cm_direct_word);
    cm_direct_mm.class_mine = (unsigned char)mine;
    cm_direct_mm.class_theirs = (unsigned char)theirs;
}

void cm_direct_sizes_differ(int peer, size_t mine, size_t theirs)
{
    uint32_t keep = cm_direct_word & 0x1ffffu, a = cm_direct_bytes_field(mine), b = cm_direct_bytes_field(theirs);
    if (a == b)
        b ^= 1u;     /* two large sizes whose hashes meet: still a mismatch */
    cm_direct_mismatch_seen(peer, keep | a << 17, keep | b << 17);
}

void cm_coll_block_tags(int tag, MPI_Datatype stype, int scount, MPI_Datatype rtype, int rcount, int *stag,
                        int *rtag)
{
    uint32_t low = (1u << CM_P2P_TAG_WORD_BITS) - 1;
    *stag = *rtag = tag | (int)cm_coll_tag_word;
    if (!cm_coll_tag_word || cm_coll_tag_word == CM_COLL_TAG_POISON || !cm_direct_word)
        return;
    uint32_t sw = cm_direct_word_class(cm_direct_word, cm_direct_data_class(stype, scount));
    cm_direct_word = cm_direct_word_class(cm_direct_word, cm_direct_data_class(rtype, rcount));
    *stag = tag | (int)((sw & low) << CM_P2P_TAG_BASE_BITS);
    *rtag = tag | (int)((cm_direct_word & low) << CM_P2P_TAG_BASE_BITS);
}

void cm_coll_word_differs(int source, int their_tag, size_t posted, size_t got)
{
    uint32_t mine = cm_direct_word, theirs;
    if (mine && !cm_direct_mm.on && cm_coll_tag_words(&mine, their_tag, posted, got, &theirs))
        cm_direct_mismatch_seen(source, mine, theirs);
}

int cm_coll_tag_words(uint32_t *mine_io, int their_tag, size_t posted, size_t got, uint32_t *theirs_out)
{
    uint32_t low = (1u << CM_P2P_TAG_WORD_BITS) - 1, mine = *mine_io;
    /* The tag holds the word's collective, op and root fields whole (bits
     * 0-16, coll_entry.h); the bytes field is the message's size. */
    uint32_t theirs = (mine & ~low) | (((uint32_t)their_tag >> CM_P2P_TAG_BASE_BITS) & low);
    if (theirs != mine && cm_direct_words_agree(mine, theirs))
        theirs = mine;
    if (got != posted) {
        mine = (mine & 0x1ffffu) | cm_direct_bytes_field(posted) << 17;
        theirs = (theirs & 0x1ffffu) | cm_direct_bytes_field(got) << 17;
    }
    if (got != posted && mine == theirs)
        theirs ^= 1u << 17;     /* two large sizes whose hashes meet: still a mismatch */
    *mine_io = mine;
    *theirs_out = theirs;
    return mine != theirs;
}

/* The call of word w: a nonblocking one's name is its blocking twin's
 * with an I after MPI_ (out: room for it). */
static const char *word_coll(uint32_t w, char *out, size_t len)
{
    const char *name = cm_coll_call_name(cm_direct_word_coll(w));
    if (!cm_direct_word_nb(w))
        return name;
    snprintf(out, len, "MPI_I%c%s", name[4] - 'A' + 'a', name + 5);
    return out;
}

/* A field's value for the message: exact, or "another value" when hashed. */
static void word_bytes(uint32_t w, char *out, size_t len)
{
    uint32_t b = w >> 17;
    if (b < 0x4000)
        snprintf(out, len, "%u bytes", b);
    else
        snprintf(out, len, "16384 bytes or more");
}

static void word_op(uint32_t w, char *out, size_t len)
{
    uint32_t o = (w >> 5) & 15u;
    if (o == 15)
        snprintf(out, len, "a user-defined op");
    else
        snprintf(out, len, "%s", cm_op_name(cm_op_handle((int)o)));
}

/* A signature class (core/datatype.h) by the type that has it. */
static const char *sig_name(unsigned c)
{
    if (c == CM_DT_SIG_MIXED)
        return "a mix of types";
    if (c == 0)
        return "MPI_PACKED";
    const struct cm_datatype *t = c < CM_DT_NUM_PREDEFINED ? cm_dt_table[c] : NULL;
    return t ? t->name : "a predefined type";
}

/* 1 when c is a class some datatype has (core/datatype.h). */
static int known_class(unsigned c)
{
    return c == CM_DT_SIG_MIXED || (c < CM_DT_NUM_PREDEFINED && (c == 0 || cm_dt_table[c]));
}

/* Reduce's root field holds root and class mixed (direct.h,
 * cm_direct_root_field; a word rebuilt from a point-to-point tag has the
 * whole field), so the other rank's root is mine plus the difference d mod
 * 256, if its class is mine, and its class mine plus d / CM_DIRECT_CLASS_MIX
 * mod 256, if its root is mine: name
 * the one hypothesis that gives a rank of the communicator or a class a
 * type has, or both when each does. */
static int reduce_root_or_class(MPI_Comm comm, const char *call, uint32_t a, uint32_t b, int peer, unsigned class_here)
{
    unsigned coll = cm_direct_word_coll(a), mix = cm_direct_class_mix(coll);
    unsigned unmix = coll == CM_COLL_REDUCE ? CM_DIRECT_CLASS_UNMIX : CM_DIRECT_CLASS_UNMIX_ROOTED;
    /* bcast, gather(v), scatter(v): the other rank's class has the hash its op bits carry */
    int hashed = cm_direct_typed_op(coll);
    unsigned hash_there = (b >> 5) & 15u;
    unsigned fa = (a >> 9) & 0xffu, fb = (b >> 9) & 0xffu, d = (fb - fa) & 0xffu;
    unsigned root_here = (fa - 1u - mix * class_here) & 0xffu;
    unsigned class_d = (d * unmix) & 0xffu;
    int size = 0, roots = 0, classes = 0;
    unsigned root_there = 0, class_there = 0;
    char names[160] = "";
    PMPI_Comm_size(comm, &size);
    unsigned r = (root_here + d) & 0xffu, c = (class_here + class_d) & 0xffu;
    if (r != root_here && (int)r < size)
        roots++, root_there = r;
    if (c != class_here && known_class(c) && (!hashed || cm_direct_class_hash(c) == hash_there)) {
        snprintf(names, sizeof names, "%s", sig_name(c));
        classes++, class_there = c;
    }
    if (classes && !roots)
        return cm_error(comm, MPI_ERR_TYPE, call, "type signature differs across ranks (same size): %s here, %s on rank %d",
                        sig_name(class_here), names, peer);
    if (roots == 1 && !classes)
        return cm_error(comm, MPI_ERR_ROOT, call, "root differs across ranks: %u here, %u on rank %d", root_here,
                        root_there, peer);
    if (roots == 1 && classes == 1)
        return cm_error(comm, MPI_ERR_ARG, call,
                        "root or type signature differs across ranks: root %u with %s here; rank %d has root %u, or "
                        "type %s (COREMPI_CHECK=1 tells which)", root_here, sig_name(class_here), peer, root_there,
                        sig_name(class_there));
    return cm_error(comm, MPI_ERR_ARG, call,
                    "root or type signature differs across ranks: root %u with %s here; rank %d has another root or "
                    "another type (COREMPI_CHECK=1 tells which)", root_here, sig_name(class_here), peer);
}

int cm_coll_mismatch_raise(MPI_Comm comm, const char *call)
{
    struct cm_direct_mismatch m = cm_direct_mm;
    unsigned class_here = cm_direct_class_here;
    cm_direct_mm = (struct cm_direct_mismatch){ 0 };
    cm_direct_word = 0;
    cm_direct_class_here = 0;
    cm_coll_tag_word = 0;
    return cm_coll_mismatch_report(comm, call, &m, class_here);
}

int cm_coll_mismatch_report(MPI_Comm comm, const char *call, const struct cm_direct_mismatch *mm, unsigned class_here)
{
    struct cm_coll_state *st = cm_coll_state_of(cm_coll_comm(comm), 0);
    if (st)
        st->mismatched = 1;     /* coll/leftover.c: what it left behind is known */
    struct cm_direct_mismatch m = *mm;
    uint32_t a = m.mine, b = m.theirs, diff = a ^ b;
    char x[48], y[48];
    if ((b & 31u) == 31u) {   /* names no argument; rank m.peer's line does: mpirun prints that first */
        char line[128];
        snprintf(line, sizeof line,
                 "rank %d saw the ranks' arguments differ earlier in this call (its error names them)", m.peer);
        return cm_error_held(comm, MPI_ERR_ARG, call, line);
    }
    if ((diff & 31u) && cm_direct_word_coll(a) == cm_direct_word_coll(b))
        return cm_error(comm, MPI_ERR_ARG, call,
                        "rank %d is in %s at the same point: a nonblocking collective does not match a blocking "
                        "one (MPI 4.1 section 6.12)", m.peer, word_coll(b, x, sizeof x));
    if (diff & 31u)
        return cm_error(comm, MPI_ERR_ARG, call,
                        "rank %d is in %s at the same point: the ranks call different collectives", m.peer,
                        word_coll(b, x, sizeof x));
    if (m.class_theirs)   /* the words agree, the whole classes beside the data do not */
        return cm_error(comm, MPI_ERR_TYPE, call,
                        "type signature differs across ranks (same size): %s here, %s on rank %d",
                        sig_name(m.class_mine), sig_name(m.class_theirs), m.peer);
    unsigned coll = cm_direct_word_coll(a);
    /* A class field of 0 (no data, or MPI_PACKED) agrees with any: what
     * differs is elsewhere (a rank with a count of 0 where the others have
     * data: the sizes). */
    uint32_t field = cm_direct_class_field(coll);
    if ((diff & field) && (!(a & field) || !(b & field)))
        diff &= ~field;
    if (cm_direct_words_agree(a & 0x1ffffu, b & 0x1ffffu))   /* the class mixed into a root field, too */
        diff &= ~0x1ffffu;
    if ((diff & (15u << 5)) && cm_direct_typed_op(coll))
        return cm_error(comm, MPI_ERR_TYPE, call,
                        "type signature differs across ranks: %s here, another type on rank %d",
                        sig_name(class_here), m.peer);
    if (diff & (15u << 5)) {
        word_op(a, x, sizeof x);
        word_op(b, y, sizeof y);
        return cm_error(comm, MPI_ERR_OP, call, "op differs across ranks: %s here, %s on rank %d", x, y, m.peer);
    }
    if ((diff & (0xffu << 9)) && cm_direct_typed(coll)) {
        unsigned ca = (a >> 9) & 0xffu, cb = (b >> 9) & 0xffu;
        return cm_error(comm, MPI_ERR_TYPE, call, "type signature differs across ranks (same size): %s here, %s on rank %d",
                        sig_name(ca), sig_name(cb), m.peer);
    }
    if ((diff & (0xffu << 9)) && cm_direct_class_mix(coll))
        return reduce_root_or_class(comm, call, a, b, m.peer, class_here);
    if (diff & (0xffu << 9))
        return cm_error(comm, MPI_ERR_ROOT, call, "root differs across ranks: %d here, %d on rank %d",
                        (int)((a >> 9) & 0xffu) - 1, (int)((b >> 9) & 0xffu) - 1, m.peer);
    if (coll == CM_COLL_ALLGATHERV && (a >> 17) >= 0x4000 && (b >> 17) >= 0x4000)   /* api_all.c, allgatherv_sizes */
        return cm_error(comm, MPI_ERR_TRUNCATE, call,
                        "block sizes differ across ranks (recvcounts x recvtype size; a rank's own, sendcount x "
                        "sendtype size): rank %d's are not this rank's (COREMPI_CHECK=1 tells which)", m.peer);
    if (!diff)   /* the same word: rank peer went another way through this call (direct/diverge.c) */
        return cm_error(comm, MPI_ERR_ARG, call,
                        "rank %d runs this call another way with the same collective, op, root, type class and "
                        "size: the ranks' datatypes or counts differ in layout (COREMPI_CHECK=1 tells how)", m.peer);
    word_bytes(a, x, sizeof x);
    word_bytes(b, y, sizeof y);
    return cm_error(comm, MPI_ERR_TRUNCATE, call,
                    "message size differs across ranks (count x type size): %s here, %s on rank %d%s", x, y,
                    m.peer, (a >> 17) >= 0x4000 && (b >> 17) >= 0x4000 ? " (COREMPI_CHECK=1 tells the sizes)" : "");
}
#endif
