/* core/dt_basic.h for the wing: "predefined basic type" is the wing's word. */
#ifndef CM_CORE_DT_BASIC_H
#define CM_CORE_DT_BASIC_H
#include "core/datatype.h"
static inline int cm_dt_is_basic(MPI_Datatype dt)
{
    const struct cm_datatype *t = cm_wing_dt(dt);
    return t && t->basic;
}
#endif
