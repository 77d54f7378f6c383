/*
 * attr_type.c -- datatype keyvals and attributes (MPI-4.1 7.7.4).
 *
 * The keyval table and attribute lists are core/attr.c's; this file only
 * finds the datatype and hands it over as a struct cm_attr_obj.  Copy
 * callbacks run on MPI_Type_dup, delete callbacks on MPI_Type_free (when the
 * user's handle goes, even if derived types still hold the type).
 * Predefined datatypes may carry attributes too; they are never freed, so
 * their attributes live until the process ends.
 */
#include "core/attr.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_comm.h"

/* The datatype as an attribute holder, or an error raised naming call. */
static int type_obj(MPI_Datatype type, const char *call, struct cm_attr_obj *o)
{
    cm_check_initialized(call);
    struct cm_datatype *t = cm_dt_lookup(type);
    if (!t)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call,
                        type == MPI_DATATYPE_NULL ? "datatype is MPI_DATATYPE_NULL" : "invalid datatype %ld",
                        (long)(intptr_t)type);
    *o = (struct cm_attr_obj){ CM_ATTR_TYPE, MPI_COMM_NULL, type, &t->attrs, MPI_WIN_NULL };
    return MPI_SUCCESS;
}

int cm_attr_type_dup(MPI_Datatype oldtype, MPI_Datatype newtype)
{
    struct cm_attr_obj o, n;
    if (type_obj(oldtype, "MPI_Type_dup", &o) || type_obj(newtype, "MPI_Type_dup", &n))
        return MPI_ERR_TYPE;
    return cm_attr_obj_copy_all(&o, &n);
}

int cm_attr_type_free(MPI_Datatype type)
{
    struct cm_attr_obj o;
    if (type_obj(type, "MPI_Type_free", &o))
        return MPI_ERR_TYPE;
    return cm_attr_obj_delete_all(&o);
}

int cm_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                          MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state)
{
    static const char call[] = "MPI_Type_create_keyval";
    cm_check_initialized(call);
    return cm_attr_keyval_create(CM_ATTR_TYPE, (void (*)(void))type_copy_attr_fn, (void (*)(void))type_delete_attr_fn,
                                 type_keyval, extra_state, call);
}

int cm_Type_free_keyval(int *type_keyval)
{
    static const char call[] = "MPI_Type_free_keyval";
    cm_check_initialized(call);
    return cm_attr_keyval_free(CM_ATTR_TYPE, type_keyval, call);
}

int cm_Type_set_attr(MPI_Datatype type, int type_keyval, void *attribute_val)
{
    static const char call[] = "MPI_Type_set_attr";
    struct cm_attr_obj o;
    int rc = type_obj(type, call, &o);
    return rc ? rc : cm_attr_set(&o, type_keyval, attribute_val, call);
}

int cm_Type_get_attr(MPI_Datatype type, int type_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Type_get_attr";
    struct cm_attr_obj o;
    int rc = type_obj(type, call, &o);
    return rc ? rc : cm_attr_get(&o, type_keyval, attribute_val, flag, call);
}

int cm_Type_delete_attr(MPI_Datatype type, int type_keyval)
{
    static const char call[] = "MPI_Type_delete_attr";
    struct cm_attr_obj o;
    int rc = type_obj(type, call, &o);
    return rc ? rc : cm_attr_delete(&o, type_keyval, call);
}
