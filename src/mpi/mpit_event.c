/*
 * mpit_event.c -- MPI_T event sources and events: corempi has none.
 *
 * MPI_T_source_get_num and MPI_T_event_get_num say 0, so every index is out
 * of range (MPI_T_ERR_INVALID_INDEX), every name unknown
 * (MPI_T_ERR_INVALID_NAME), and no registration or event instance can exist:
 * a call given one gets MPI_T_ERR_INVALID_HANDLE.  Nothing here pretends an
 * event was registered.
 */
#include "mpi/mpit.h"
#include "fe_tool.h"

int cm_T_source_get_num(int *num_sources)
{
    return cm_mpit_num(num_sources, 0);
}

int cm_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                         MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                         MPI_Info *info)
{
    CM_MPIT_CHECK();
    (void)source_index, (void)name, (void)name_len, (void)desc, (void)desc_len, (void)ordering;
    (void)ticks_per_second, (void)max_ticks, (void)info;
    return MPI_T_ERR_INVALID_INDEX;
}

int cm_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    CM_MPIT_CHECK();
    (void)source_index, (void)timestamp;
    return MPI_T_ERR_INVALID_INDEX;
}

int cm_T_event_get_num(int *num_events)
{
    return cm_mpit_num(num_events, 0);
}

int cm_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                        MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements,
                        MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind)
{
    CM_MPIT_CHECK();
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc, (void)desc_len;
    (void)bind;
    return MPI_T_ERR_INVALID_INDEX;
}

int cm_T_event_get_index(const char *name, int *event_index)
{
    CM_MPIT_CHECK_ARGS(!name || !event_index);
    return MPI_T_ERR_INVALID_NAME;
}

int cm_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                            MPI_T_event_registration *event_registration)
{
    CM_MPIT_CHECK();
    (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
    return MPI_T_ERR_INVALID_INDEX;
}

/* The calls on a registration or an event instance: none can exist. */
static int no_such_handle(void)
{
    CM_MPIT_CHECK();
    return MPI_T_ERR_INVALID_HANDLE;
}

int cm_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    (void)event_registration, (void)info_used;
    return no_such_handle();
}

int cm_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration, (void)info;
    return no_such_handle();
}

int cm_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                 MPI_Info info, void *user_data, MPI_T_event_cb_function event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data, (void)event_cb_function;
    return no_such_handle();
}

int cm_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                 MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety, (void)info_used;
    return no_such_handle();
}

int cm_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                 MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    return no_such_handle();
}

int cm_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                           MPI_T_event_free_cb_function free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    return no_such_handle();
}

int cm_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                   MPI_T_event_dropped_cb_function dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    return no_such_handle();
}

int cm_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance, (void)element_index, (void)buffer;
    return no_such_handle();
}

int cm_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance, (void)buffer;
    return no_such_handle();
}

int cm_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance, (void)event_timestamp;
    return no_such_handle();
}

int cm_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance, (void)source_index;
    return no_such_handle();
}
