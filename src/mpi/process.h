/* process.h -- the process-level state shared by MPI_Init and sessions (init.c). */
#ifndef CM_MPI_PROCESS_H
#define CM_MPI_PROCESS_H

/* One more user of the library's process state (the world model or a
 * session): the first sets the layers up at thread level `required`.  An
 * error (class) after MPI_Finalize; after the last MPI_Session_finalize of
 * a process that never called MPI_Init, the state is taken up again. */
int cm_process_up(int required, const char *call);
/* One user less: the last one delivers queued control messages and tears
 * the layers down, or, under sessions only, leaves them idle for a later
 * session (call_id: the CM_CALL_ of the caller, for progress). */
void cm_process_down(int call_id);

#endif
