/*
 * datatype_pack.c -- the pack engine (whole or by byte range), MPI_Pack,
 * MPI_Unpack, MPI_Pack_size and the "external32" representation.
 *
 * The engine walks (element, repetition, block) from any packed offset.  A
 * single-block layout (every vector, indexed_block with even spacing, a 2-D
 * subarray...) goes through a strided loop whose copy size is a compile-time
 * constant for the common widths, so the compiler inlines it.
 */
#include "core/datatype.h"
#include "core/dt_basic.h"
#include "core/comm.h"
#include "core/error.h"
#include "shm/copy.h"
#include "fe_dt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(long) == 8 && sizeof(void *) == 8 && sizeof(wchar_t) == 4,
               "external32 sizes are assumed equal to the native LP64 sizes");

#define STRIDED_LOOP(W)                                          \
    do {                                                         \
        if (unpack)                                              \
            for (size_t i = 0; i < k; i++, pk += (W), u += stride) \
                memcpy(u, pk, (W));                              \
        else                                                     \
            for (size_t i = 0; i < k; i++, pk += (W), u += stride) \
                memcpy(pk, u, (W));                              \
    } while (0)

/* k runs of bl bytes, stride apart in the user's buffer, packed back to back. */
static void strided(int unpack, char *u, MPI_Aint stride, char *pk, size_t bl, size_t k)
{
    switch (bl) {
    case 1: STRIDED_LOOP(1); break;
    case 2: STRIDED_LOOP(2); break;
    case 4: STRIDED_LOOP(4); break;
    case 8: STRIDED_LOOP(8); break;
    case 12: STRIDED_LOOP(12); break;
    case 16: STRIDED_LOOP(16); break;
    case 24: STRIDED_LOOP(24); break;
    case 32: STRIDED_LOOP(32); break;
    default: STRIDED_LOOP(bl); break;
    }
}

static inline void xfer(int unpack, char *u, char *pk, size_t n)
{
    if (unpack)
        cm_copy(u, pk, n);
    else
        cm_copy(pk, u, n);
}

/* The block holding packed offset r of one repetition (binary search). */
static size_t block_at(const struct cm_datatype *t, size_t r)
{
    size_t lo = 0, hi = t->nblocks - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (t->blocks[mid].packed <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static size_t walk(int unpack, char *user, int count, const struct cm_datatype *t, size_t offset,
                   char *pk, size_t len)
{
    if (count <= 0 || t->size == 0)
        return 0;
    size_t total = (size_t)count * t->size;
    if (offset >= total)
        return 0;
    if (len > total - offset)
        len = total - offset;
    if (t->contig) {
        xfer(unpack, user + t->true_lb + offset, pk, len);
        return len;
    }
    size_t rep_bytes = t->size / t->rep_count;
    size_t elem = offset / t->size, r = offset % t->size;
    size_t rep = r / rep_bytes;
    r %= rep_bytes;
    size_t b = block_at(t, r);
    r -= t->blocks[b].packed;

    size_t rc = t->rep_count;
    MPI_Aint stride = t->rep_stride, ext = t->extent;
    char *ebase = user + (MPI_Aint)elem * ext;
    size_t done = 0;

    if (t->nblocks == 1) {
        /* Vector fast path.  With no repetition inside the element, the
         * elements themselves are the repetitions. */
        if (rc == 1) {
            rc = (size_t)count;
            rep = elem;
            stride = ext;
            ebase = user;
        }
        const MPI_Aint disp = t->blocks[0].disp;
        const size_t bl = t->blocks[0].len;
        while (done < len) {
            char *p = ebase + (MPI_Aint)rep * stride + disp;
            size_t avail = len - done;
            if (r == 0 && avail >= bl) {
                size_t k = rc - rep;
                if (k > avail / bl)
                    k = avail / bl;
                strided(unpack, p, stride, pk + done, bl, k);
                done += k * bl;
                rep += k;
            } else {
                size_t n = bl - r < avail ? bl - r : avail;
                xfer(unpack, p + r, pk + done, n);
                done += n;
                r += n;
                if (r < bl)
                    break;
                r = 0;
                rep++;
            }
            if (rep == rc) {
                rep = 0;
                ebase += ext;
            }
        }
        return done;
    }

    const size_t nb = t->nblocks;
    for (;;) {
        const struct cm_dt_block *B = &t->blocks[b];
        size_t n = B->len - r;
        if (n > len - done)
            n = len - done;
        xfer(unpack, ebase + (MPI_Aint)rep * stride + B->disp + (MPI_Aint)r, pk + done, n);
        done += n;
        if (done == len)
            break;
        r = 0;
        if (++b == nb) {
            b = 0;
            if (++rep == rc) {
                rep = 0;
                ebase += ext;
            }
        }
    }
    return done;
}

size_t cm_dt_pack_range(const void *buf, int count, const struct cm_datatype *t, size_t offset,
                        void *out, size_t len)
{
    return walk(0, (char *)buf, count, t, offset, out, len);
}

size_t cm_dt_unpack_range(const void *in, size_t len, void *buf, int count, const struct cm_datatype *t,
                          size_t offset)
{
    return walk(1, buf, count, t, offset, (char *)in, len);
}

void cm_dt_pack(const void *buf, int count, const struct cm_datatype *t, void *out)
{
    walk(0, (char *)buf, count, t, 0, out, (size_t)(count > 0 ? count : 0) * t->size);
}

void cm_dt_unpack(const void *in, size_t bytes, void *buf, int count, const struct cm_datatype *t)
{
    walk(1, buf, count, t, 0, (char *)in, bytes);
}

/* --- external32 --------------------------------------------------------------- */

static void swap_bytes(unsigned char *p, size_t w)
{
    for (size_t i = 0; i < w / 2; i++) {
        unsigned char c = p[i];
        p[i] = p[w - 1 - i];
        p[w - 1 - i] = c;
    }
}

static void swap_run(unsigned char *p, size_t w, size_t n)
{
    switch (w) {
    case 1:
        return;
    case 2:
        for (size_t i = 0; i < n; i++, p += 2) {
            uint16_t v;
            memcpy(&v, p, 2);
            v = __builtin_bswap16(v);
            memcpy(p, &v, 2);
        }
        return;
    case 4:
        for (size_t i = 0; i < n; i++, p += 4) {
            uint32_t v;
            memcpy(&v, p, 4);
            v = __builtin_bswap32(v);
            memcpy(p, &v, 4);
        }
        return;
    case 8:
        for (size_t i = 0; i < n; i++, p += 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            v = __builtin_bswap64(v);
            memcpy(p, &v, 8);
        }
        return;
    default:
        for (size_t i = 0; i < n; i++, p += w)
            swap_bytes(p, w);
    }
}

static void put_be64(unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

static uint64_t get_be64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* x87 80-bit extended (in 16 bytes) <-> big-endian IEEE binary128.  Both use
 * a 15-bit exponent with bias 16383, so only the explicit integer bit of the
 * x87 mantissa goes (or comes back: it is 1 unless the exponent is 0). */
static void long_double_convert(unsigned char *p, int to_external)
{
    if (to_external) {
        uint64_t m;
        uint16_t se;
        memcpy(&m, p, 8);
        memcpy(&se, p + 8, 2);
        uint64_t frac = m & ~((uint64_t)1 << 63);
        uint64_t hi = (uint64_t)se << 48 | frac >> 15;
        uint64_t lo = frac << 49;
        put_be64(p, hi);
        put_be64(p + 8, lo);
    } else {
        uint64_t hi = get_be64(p), lo = get_be64(p + 8);
        uint16_t se = (uint16_t)(hi >> 48);
        uint64_t frac = (hi & (((uint64_t)1 << 48) - 1)) << 15 | lo >> 49;
        uint64_t m = frac | (uint64_t)((se & 0x7fff) != 0) << 63;
        memset(p, 0, 16);
        memcpy(p, &m, 8);
        memcpy(p + 8, &se, 2);
    }
}

struct swap_ctx {
    unsigned char *p;
    int to_external;
};

static int swap_basic_run(MPI_Datatype basic, size_t n, void *arg)
{
    struct swap_ctx *c = arg;
    size_t s = cm_dt_basic_size(basic), val, idx;
    switch (cm_dt_index(basic)) {
    case CM_DTI_MPI_LONG_DOUBLE:
        for (size_t i = 0; i < n; i++)
            long_double_convert(c->p + 16 * i, c->to_external);
        break;
    case CM_DTI_MPI_C_LONG_DOUBLE_COMPLEX:
    case CM_DTI_MPI_CXX_LONG_DOUBLE_COMPLEX:
        for (size_t i = 0; i < 2 * n; i++)
            long_double_convert(c->p + 16 * i, c->to_external);
        break;
    default:
        if (cm_dt_basic_class(basic) == CM_DTC_COMPLEX) {
            /* two IEEE halves (float, double, half, quad): each swapped */
            swap_run(c->p, s / 2, 2 * n);
        } else if (cm_dt_basic_pair_layout(basic, &val, &idx)) {
            /* packed pair: the value's bytes, then the index's */
            for (size_t i = 0; i < n; i++) {
                unsigned char *e = c->p + s * i;
                if (basic == MPI_LONG_DOUBLE_INT)
                    long_double_convert(e, c->to_external);
                else
                    swap_run(e, val, 1);
                swap_run(e + val, s - val, 1);
            }
        } else {
            swap_run(c->p, s, n);
        }
    }
    c->p += s * n;
    return 0;
}

void cm_dt_external32_swap(const struct cm_datatype *t, void *packed, size_t bytes, int to_external)
{
    if (t->size == 0)
        return;
    struct swap_ctx c = { packed, to_external };
    cm_dt_for_each_run(t, bytes / t->size, swap_basic_run, &c);
}

/* --- the MPI calls ------------------------------------------------------------ */

static int check_comm(MPI_Comm comm, const char *call)
{
    if (!cm_comm_lookup(comm, NULL))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "invalid communicator %ld", (long)(intptr_t)comm);
    return MPI_SUCCESS;
}

static int check_datarep(const char *datarep, const char *call)
{
    if (!datarep || strcmp(datarep, "external32") != 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "data representation \"%s\" is not supported "
                        "(only \"external32\")", datarep ? datarep : "(null)");
    return MPI_SUCCESS;
}

/* Shared checks of the pack calls; *t and *bytes out. */
static int pack_args(MPI_Comm comm, const char *call, int count, MPI_Datatype dt, const void *position,
                     struct cm_datatype **t, size_t *bytes)
{
    if (count < 0)
        return cm_error(comm, MPI_ERR_COUNT, call, "negative count %d", count);
    int rc = cm_dt_check(comm, dt, call, "datatype");
    if (rc)
        return rc;
    CM_ARG_NOT_NULL(comm, position, call);
    *t = cm_dt_lookup(dt);
    *bytes = (size_t)count * (*t)->size;
    return MPI_SUCCESS;
}

/* The typed buffer may be MPI_BOTTOM (NULL) for a type of absolute
 * addresses; the packed buffer is plain bytes and must exist. */
static int typed_and_packed(MPI_Comm comm, const char *call, const void *typed, int count,
                            const struct cm_datatype *t, const char *typed_name, const void *packed, size_t bytes,
                            const char *packed_name)
{
    if (bytes && !packed)
        return cm_error(comm, MPI_ERR_BUFFER, call, "%s is NULL", packed_name);
    if (bytes)
        return cm_dt_bottom_check(comm, call, typed_name, typed, count, t);
    return MPI_SUCCESS;
}

int cm_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
            int *position, MPI_Comm comm)
{
    const char *call = "MPI_Pack";
    int rc = check_comm(comm, call);
    struct cm_datatype *t = NULL;
    size_t bytes;
    if (rc || (rc = pack_args(comm, call, incount, datatype, position, &t, &bytes)))
        return rc;
    if (*position < 0 || outsize < 0 || (size_t)*position + bytes > (size_t)outsize)
        return cm_error(comm, MPI_ERR_TRUNCATE, call, "%zu bytes do not fit in outbuf of %d bytes at position %d",
                        bytes, outsize, *position);
    if ((rc = typed_and_packed(comm, call, inbuf, incount, t, "inbuf", outbuf, bytes, "outbuf")))
        return rc;
    cm_dt_pack(inbuf, incount, t, (char *)outbuf + *position);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int cm_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
              MPI_Datatype datatype, MPI_Comm comm)
{
    const char *call = "MPI_Unpack";
    int rc = check_comm(comm, call);
    struct cm_datatype *t = NULL;
    size_t bytes;
    if (rc || (rc = pack_args(comm, call, outcount, datatype, position, &t, &bytes)))
        return rc;
    if (*position < 0 || insize < 0 || (size_t)*position + bytes > (size_t)insize)
        return cm_error(comm, MPI_ERR_TRUNCATE, call, "%zu bytes wanted, inbuf of %d bytes has %d left",
                        bytes, insize, insize - *position);
    if ((rc = typed_and_packed(comm, call, outbuf, outcount, t, "outbuf", inbuf, bytes, "inbuf")))
        return rc;
    cm_dt_unpack((const char *)inbuf + *position, bytes, outbuf, outcount, t);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int cm_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    const char *call = "MPI_Pack_size";
    int rc = check_comm(comm, call);
    struct cm_datatype *t = NULL;
    size_t bytes;
    if (rc || (rc = pack_args(comm, call, incount, datatype, size, &t, &bytes)))
        return rc;
    if (bytes > INT_MAX)
        return cm_error(comm, MPI_ERR_ARG, call, "%d elements pack to %zu bytes, more than an int holds",
                        incount, bytes);
    *size = (int)bytes;
    return MPI_SUCCESS;
}

int cm_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                     void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    const char *call = "MPI_Pack_external";
    int rc = check_datarep(datarep, call);
    struct cm_datatype *t = NULL;
    size_t bytes;
    if (rc || (rc = pack_args(MPI_COMM_WORLD, call, incount, datatype, position, &t, &bytes)))
        return rc;
    if (*position < 0 || outsize < 0 || (size_t)*position + bytes > (size_t)outsize)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, call,
                        "%zu bytes do not fit in outbuf of %ld bytes at position %ld", bytes,
                        (long)outsize, (long)*position);
    if ((rc = typed_and_packed(MPI_COMM_WORLD, call, inbuf, incount, t, "inbuf", outbuf, bytes, "outbuf")))
        return rc;
    char *out = (char *)outbuf + *position;
    cm_dt_pack(inbuf, incount, t, out);
    cm_dt_external32_swap(t, out, bytes, 1);
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}

int cm_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                       void *outbuf, int outcount, MPI_Datatype datatype)
{
    const char *call = "MPI_Unpack_external";
    int rc = check_datarep(datarep, call);
    struct cm_datatype *t = NULL;
    size_t bytes;
    if (rc || (rc = pack_args(MPI_COMM_WORLD, call, outcount, datatype, position, &t, &bytes)))
        return rc;
    if (*position < 0 || insize < 0 || (size_t)*position + bytes > (size_t)insize)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, call, "%zu bytes wanted, inbuf has %ld left",
                        bytes, (long)(insize - *position));
    if ((rc = typed_and_packed(MPI_COMM_WORLD, call, outbuf, outcount, t, "outbuf", inbuf, bytes, "inbuf")))
        return rc;
    if (bytes) {
        /* convert a copy: inbuf is const */
        char *tmp = malloc(bytes);
        if (!tmp)
            return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "out of memory (%zu bytes)", bytes);
        memcpy(tmp, (const char *)inbuf + *position, bytes);
        cm_dt_external32_swap(t, tmp, bytes, 0);
        cm_dt_unpack(tmp, bytes, outbuf, outcount, t);
        free(tmp);
    }
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}

int cm_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    const char *call = "MPI_Pack_external_size";
    int rc = check_datarep(datarep, call);
    struct cm_datatype *t = NULL;
    size_t bytes;
    if (rc || (rc = pack_args(MPI_COMM_WORLD, call, incount, datatype, size, &t, &bytes)))
        return rc;
    *size = (MPI_Aint)bytes;
    return MPI_SUCCESS;
}
