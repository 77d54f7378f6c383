/*
 * datatype_contents.c -- the record of how a derived type was built:
 * MPI_Type_get_envelope (through cm_dt_envelope_derived) and
 * MPI_Type_get_contents.
 *
 * The record names the old types by handle and holds a reference on each
 * derived one, so a type can be decoded even after the user freed the types
 * it was built from.  Get_contents hands out a further reference per derived
 * type (the caller frees it), as MPI asks.
 */
#include "core/datatype.h"
#include "core/error.h"
#include "fe_dt.h"

#include <stdlib.h>
#include <string.h>

struct cm_dt_contents {
    int combiner, ni, na, nd;
    int nl;                 /* large counts (MPI_Count), after the addresses */
    MPI_Count *large;
    MPI_Aint *addrs;
    int *ints;
    MPI_Datatype *types;
};

int cm_dt_set_contents(struct cm_datatype *t, int combiner, int ni, const int *ints, int na,
                     const MPI_Aint *addrs, int nd, const MPI_Datatype *types)
{
    size_t bytes = sizeof(struct cm_dt_contents) + (size_t)na * sizeof(MPI_Aint) +
                   (size_t)ni * sizeof(int) + (size_t)nd * sizeof(MPI_Datatype);
    struct cm_dt_contents *c = malloc(bytes);
    if (!c)
        return MPI_ERR_NO_MEM;
    c->combiner = combiner;
    c->ni = ni;
    c->na = na;
    c->nd = nd;
    /* Widest first: addresses and handles (pointers under the standard ABI)
     * stay aligned after the struct, the ints go last. */
    c->addrs = (MPI_Aint *)(c + 1);
    c->types = (MPI_Datatype *)(c->addrs + na);
    c->ints = (int *)(c->types + nd);
    if (na)
        memcpy(c->addrs, addrs, (size_t)na * sizeof *addrs);
    if (ni)
        memcpy(c->ints, ints, (size_t)ni * sizeof *ints);
    if (nd)
        memcpy(c->types, types, (size_t)nd * sizeof *types);
    for (int i = 0; i < nd; i++)
        cm_dt_retain(types[i]);
    c->nl = 0;
    c->large = NULL;
    t->contents = c;
    return MPI_SUCCESS;
}

int cm_dt_set_contents_large(struct cm_datatype *t, int combiner, int nl, const MPI_Count *large, int nd,
                           const MPI_Datatype *types)
{
    /* The large counts ride in the address slots (both 8 bytes wide), then
     * move to their own field so the int calls see no addresses. */
    _Static_assert(sizeof(MPI_Count) == sizeof(MPI_Aint), "large counts share the address slots");
    int rc = cm_dt_set_contents(t, combiner, 0, NULL, nl, (const MPI_Aint *)large, nd, types);
    if (rc == MPI_SUCCESS) {
        struct cm_dt_contents *c = t->contents;
        c->large = (MPI_Count *)c->addrs;
        c->nl = nl;
        c->na = 0;
    }
    return rc;
}

void cm_dt_free_contents(struct cm_datatype *t)
{
    struct cm_dt_contents *c = t->contents;
    if (!c)
        return;
    t->contents = NULL;
    for (int i = 0; i < c->nd; i++)
        cm_dt_release(c->types[i]);
    free(c);
}

int cm_dt_contents_are(const struct cm_datatype *t, int combiner, int ni, const int *ints)
{
    const struct cm_dt_contents *c = t->contents;
    return c && c->combiner == combiner && c->ni == ni && c->na == 0 && c->nl == 0 && c->nd == 0 &&
           memcmp(c->ints, ints, (size_t)ni * sizeof *ints) == 0;
}

int cm_dt_envelope_derived(const struct cm_datatype *t, int *ni, int *na, int *nd, int *combiner)
{
    const struct cm_dt_contents *c = t->contents;
    if (!c) {
        *ni = *na = *nd = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    *ni = c->ni;
    *na = c->na;
    *nd = c->nd;
    *combiner = c->combiner;
    return MPI_SUCCESS;
}

/* Both Get_contents bindings: check the array sizes and fill them.  The
 * int binding (with_large 0) has no large-count array; a type built by a
 * large-count constructor shows it only its datatypes. */
static int contents(const char *call, int with_large, MPI_Datatype datatype, MPI_Count max_integers,
                    MPI_Count max_addresses, MPI_Count max_large, MPI_Count max_datatypes, int *ints,
                    MPI_Aint *addrs, MPI_Count *large, MPI_Datatype *types)
{
    struct cm_datatype *t = cm_dt_lookup(datatype);
    if (!t)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype %ld", (long)(intptr_t)datatype);
    const struct cm_dt_contents *c = t->contents;
    if (t->predefined || !c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call,
                        "%s is a named (predefined) datatype: it has no contents", t->name);
    int nl = with_large ? c->nl : 0;
    if (max_integers < c->ni || max_addresses < c->na || max_large < nl || max_datatypes < c->nd)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                        "arrays too small: need %d integers, %d addresses, %d large counts, %d datatypes; "
                        "got %lld, %lld, %lld, %lld",
                        c->ni, c->na, nl, c->nd, (long long)max_integers, (long long)max_addresses,
                        (long long)max_large, (long long)max_datatypes);
    if ((c->ni && !ints) || (c->na && !addrs) || (nl && !large) || (c->nd && !types))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "an output array is NULL");
    if (c->ni)
        memcpy(ints, c->ints, (size_t)c->ni * sizeof(int));
    if (c->na)
        memcpy(addrs, c->addrs, (size_t)c->na * sizeof(MPI_Aint));
    if (nl)
        memcpy(large, c->large, (size_t)nl * sizeof(MPI_Count));
    for (int i = 0; i < c->nd; i++) {
        types[i] = c->types[i];
        cm_dt_retain(c->types[i]);
    }
    return MPI_SUCCESS;
}

int cm_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                         int array_of_integers[], MPI_Aint array_of_addresses[],
                         MPI_Datatype array_of_datatypes[])
{
    return contents("MPI_Type_get_contents", 0, datatype, max_integers, max_addresses, 0, max_datatypes,
                    array_of_integers, array_of_addresses, NULL, array_of_datatypes);
}

int cm_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
                           MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner)
{
    const char *call = "MPI_Type_get_envelope_c";
    struct cm_datatype *t = cm_dt_lookup(datatype);
    if (!t)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype %ld", (long)(intptr_t)datatype);
    if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes || !combiner)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "an output argument is NULL");
    const struct cm_dt_contents *c = t->contents;
    if (t->predefined || !c) {
        *num_integers = *num_addresses = *num_large_counts = *num_datatypes = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    *num_integers = c->ni;
    *num_addresses = c->na;
    *num_large_counts = c->nl;
    *num_datatypes = c->nd;
    *combiner = c->combiner;
    return MPI_SUCCESS;
}

int cm_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                           MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                           MPI_Datatype array_of_datatypes[])
{
    return contents("MPI_Type_get_contents_c", 1, datatype, max_integers, max_addresses, max_large_counts,
                    max_datatypes, array_of_integers, array_of_addresses, array_of_large_counts,
                    array_of_datatypes);
}
