/* core/error.h for the wing: the engine's two error paths. */
#ifndef CM_CORE_ERROR_H
#define CM_CORE_ERROR_H
#include <mpi.h>
_Noreturn void cm_fatal(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cm_env_warn(const char *name, const char *value, const char *why, ...) __attribute__((format(printf, 3, 4)));
#endif
