/*
 * types.c -- the host's datatypes and ops as the engine sees them
 * (docs/wing.md, "Types and ops").  A type is decoded once through the
 * host's own calls (envelope, contents, size, extents) and cached by its
 * handle's value, which is a pointer under Open MPI and an int under MPICH:
 * only == and a hash of the bits are used, never its representation.
 */
#include "wing/wing.h"
#include "wing/kernels.h"

#include <stdlib.h>
#include <string.h>

/* The host's predefined types the wing has loops for, with their element
 * kind (wing/kernels.h).  The kind is chosen by the C type's size and
 * signedness, as the host defines the type. */
#define SIGNED_KIND(T) (sizeof(T) == 1 ? CM_WK_I8 : sizeof(T) == 2 ? CM_WK_I16 : sizeof(T) == 4 ? CM_WK_I32 : CM_WK_I64)
#define UNSIGNED_KIND(T) (sizeof(T) == 1 ? CM_WK_U8 : sizeof(T) == 2 ? CM_WK_U16 : sizeof(T) == 4 ? CM_WK_U32 : CM_WK_U64)
struct predefined {
    MPI_Datatype h;
    int kind;
};
static struct predefined predef[32];
static int npredef;

static void add(MPI_Datatype h, int kind)
{
    if (h != MPI_DATATYPE_NULL && npredef < (int)(sizeof predef / sizeof predef[0]))
        predef[npredef++] = (struct predefined){ h, kind };
}

static void predefined_table(void)
{
    if (npredef)
        return;
    add(MPI_SIGNED_CHAR, CM_WK_I8);
    add(MPI_UNSIGNED_CHAR, CM_WK_U8);
    add(MPI_SHORT, SIGNED_KIND(short));
    add(MPI_UNSIGNED_SHORT, UNSIGNED_KIND(unsigned short));
    add(MPI_INT, SIGNED_KIND(int));
    add(MPI_UNSIGNED, UNSIGNED_KIND(unsigned));
    add(MPI_LONG, SIGNED_KIND(long));
    add(MPI_UNSIGNED_LONG, UNSIGNED_KIND(unsigned long));
    add(MPI_LONG_LONG, SIGNED_KIND(long long));
    add(MPI_UNSIGNED_LONG_LONG, UNSIGNED_KIND(unsigned long long));
    add(MPI_INT8_T, CM_WK_I8);
    add(MPI_INT16_T, CM_WK_I16);
    add(MPI_INT32_T, CM_WK_I32);
    add(MPI_INT64_T, CM_WK_I64);
    add(MPI_UINT8_T, CM_WK_U8);
    add(MPI_UINT16_T, CM_WK_U16);
    add(MPI_UINT32_T, CM_WK_U32);
    add(MPI_UINT64_T, CM_WK_U64);
    add(MPI_FLOAT, CM_WK_F32);
    add(MPI_DOUBLE, CM_WK_F64);
}

static int predefined_kind(MPI_Datatype h)
{
    for (int i = 0; i < npredef; i++)
        if (predef[i].h == h)
            return predef[i].kind;
    return 0;
}

/* The one loop kind all of h's data is made of, 0 when mixed or unknown:
 * the host's constructor arguments, followed down to named types. */
static int element_kind(MPI_Datatype h, int depth, MPI_Datatype *named)
{
    int ni, na, nd, comb;
    if (depth > 16 || PMPI_Type_get_envelope(h, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return 0;
    if (comb == MPI_COMBINER_NAMED) {
        *named = h;
        return predefined_kind(h);
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    int kind = 0;
    if (ints && aints && types &&
        PMPI_Type_get_contents(h, ni, na, nd, ints, aints, types) == MPI_SUCCESS) {
        for (int i = 0; i < nd; i++) {
            MPI_Datatype mine = MPI_DATATYPE_NULL;
            int k = element_kind(types[i], depth + 1, &mine);
            if (i == 0)
                *named = mine;
            else if (mine != *named)
                *named = MPI_DATATYPE_NULL;
            kind = i == 0 || k == kind ? k : 0;
            int cni, cna, cnd, ccomb;
            PMPI_Type_get_envelope(types[i], &cni, &cna, &cnd, &ccomb);
            if (ccomb != MPI_COMBINER_NAMED)
                PMPI_Type_free(&types[i]);   /* get_contents hands out derived types to free */
        }
    }
    free(ints);
    free(aints);
    free(types);
    return kind;
}

/* The cache: open addressing on the handle's bits; a full table decodes
 * again each time (correct, slower). */
#define SLOTS 512
static struct cm_datatype cache[SLOTS];
static unsigned char used[SLOTS];
static MPI_Datatype last_h;
static const struct cm_datatype *last_t;

static unsigned slot_of(MPI_Datatype h)
{
    uintptr_t v = 0;
    memcpy(&v, &h, sizeof h < sizeof v ? sizeof h : sizeof v);
    return (unsigned)((v * 0x9E3779B97F4A7C15ull) >> 55) & (SLOTS - 1);
}

static int decode(MPI_Datatype h, struct cm_datatype *t)
{
    int size;
    MPI_Aint lb, extent, tlb, textent;
    if (h == MPI_DATATYPE_NULL || PMPI_Type_size(h, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent(h, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(h, &tlb, &textent) != MPI_SUCCESS)
        return 0;
    predefined_table();
    int ni, na, nd, comb;
    PMPI_Type_get_envelope(h, &ni, &na, &nd, &comb);
    t->size = (size_t)size;
    t->lb = lb;
    t->extent = extent;
    t->true_lb = tlb;
    t->true_extent = textent;
    t->basic = comb == MPI_COMBINER_NAMED ? predefined_kind(h) : 0;
    t->elem_handle = MPI_DATATYPE_NULL;
    t->elem = element_kind(h, 0, &t->elem_handle);
    t->sig_class = t->elem ? (unsigned char)t->elem : (unsigned char)CM_DT_SIG_MIXED;
    t->handle = h;
    return 1;
}

const struct cm_datatype *cm_wing_dt(MPI_Datatype h)
{
    if (h == last_h && last_t)
        return last_t;
    unsigned i = slot_of(h);
    for (unsigned probe = 0; probe < 8; probe++, i = (i + 1) & (SLOTS - 1)) {
        if (used[i] && cache[i].handle == h)
            return last_h = h, last_t = &cache[i];
        if (!used[i]) {
            if (!decode(h, &cache[i]))
                return NULL;
            used[i] = 1;
            return last_h = h, last_t = &cache[i];
        }
    }
    static struct cm_datatype spare;
    return decode(h, &spare) ? &spare : NULL;
}

/* A freed type's handle may come back for another type: forget it
 * (wing/front.c interposes MPI_Type_free). */
void cm_wing_dt_forget(MPI_Datatype h)
{
    unsigned i = slot_of(h);
    for (unsigned probe = 0; probe < 8; probe++, i = (i + 1) & (SLOTS - 1))
        if (used[i] && cache[i].handle == h) {
            /* Leave the slot used with a handle nobody has, so probes go on past it. */
            cache[i].handle = MPI_DATATYPE_NULL;
            break;
        }
    last_t = NULL;
}

/* ---- ops ---------------------------------------------------------------- */

int cm_wing_op_index(MPI_Op op)
{
    static const MPI_Op *table;
    static MPI_Op ops[CM_WO_NUM];
    if (!table) {
        ops[CM_WO_MAX] = MPI_MAX; ops[CM_WO_MIN] = MPI_MIN; ops[CM_WO_SUM] = MPI_SUM; ops[CM_WO_PROD] = MPI_PROD;
        ops[CM_WO_LAND] = MPI_LAND; ops[CM_WO_BAND] = MPI_BAND; ops[CM_WO_LOR] = MPI_LOR; ops[CM_WO_BOR] = MPI_BOR;
        ops[CM_WO_LXOR] = MPI_LXOR; ops[CM_WO_BXOR] = MPI_BXOR; ops[CM_WO_MAXLOC] = MPI_MAXLOC;
        ops[CM_WO_MINLOC] = MPI_MINLOC; ops[CM_WO_REPLACE] = MPI_REPLACE; ops[CM_WO_NO_OP] = MPI_NO_OP;
        table = ops;
    }
    for (int i = 1; i < CM_WO_NUM; i++)
        if (table[i] == op)
            return i;
    return 0;
}

int cm_op_is_commutative(MPI_Op op)
{
    int c = 1;
    if (!cm_op_is_predefined(op))
        PMPI_Op_commutative(op, &c);
    return c;
}

cm_op_kernel_fn cm_op_predefined_kernel(MPI_Op op, MPI_Datatype basic)
{
    const struct cm_datatype *t = cm_wing_dt(basic);
    return t && t->basic ? cm_wing_kernel(cm_wing_op_index(op), t->basic) : NULL;
}

cm_op_kernel3_fn cm_op_predefined_kernel3(MPI_Op op, MPI_Datatype basic)
{
    const struct cm_datatype *t = cm_wing_dt(basic);
    return t && t->basic ? cm_wing_kernel3(cm_wing_op_index(op), t->basic) : NULL;
}
