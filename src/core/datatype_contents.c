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

#include <stdlib.h>
#include <string.h>

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents

struct cm_dt_contents {
    int combiner, ni, na, nd;
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
    t->contents = c;
    return MPI_SUCCESS;
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

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[])
{
    const char *call = "MPI_Type_get_contents";
    struct cm_datatype *t = cm_dt_lookup(datatype);
    if (!t)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype %ld", (long)(intptr_t)datatype);
    const struct cm_dt_contents *c = t->contents;
    if (t->predefined || !c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call,
                        "%s is a named (predefined) datatype: it has no contents", t->name);
    if (max_integers < c->ni || max_addresses < c->na || max_datatypes < c->nd)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                        "arrays too small: need %d integers, %d addresses, %d datatypes; got %d, %d, %d",
                        c->ni, c->na, c->nd, max_integers, max_addresses, max_datatypes);
    if ((c->ni && !array_of_integers) || (c->na && !array_of_addresses) || (c->nd && !array_of_datatypes))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "an output array is NULL");
    if (c->ni)
        memcpy(array_of_integers, c->ints, (size_t)c->ni * sizeof(int));
    if (c->na)
        memcpy(array_of_addresses, c->addrs, (size_t)c->na * sizeof(MPI_Aint));
    for (int i = 0; i < c->nd; i++) {
        array_of_datatypes[i] = c->types[i];
        cm_dt_retain(c->types[i]);
    }
    return MPI_SUCCESS;
}
