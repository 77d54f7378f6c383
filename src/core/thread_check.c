/* thread_check.c -- COREMPI_CHECK's check of the thread level (thread_check.h). */
#include "core/thread_check.h"
#include "core/error.h"
#include "core/state.h"

#include <stdint.h>
#include <stdio.h>

int cm_thread_check_on;
static const char *granted_by = "MPI_Init";

/* SERIALIZED: the thread whose outermost MPI call runs, and that call, as
 * (thread number << 32) | call id; 0 while no thread is inside MPI.  Taken
 * by compare-and-swap, so of two threads that enter at once one finds the
 * other's call here. */
static uint64_t in_mpi;

/* This thread's checked calls open (a callback's calls nest inside its
 * outer call), and its number for the report: 1 is the thread that
 * initialised MPI, the others 2, 3, ... in the order of their first call. */
static CM_THREAD_LOCAL unsigned depth;
static CM_THREAD_LOCAL unsigned number;
static unsigned numbers;

static unsigned self_number(void)
{
    if (!number)
        number = __atomic_add_fetch(&numbers, 1, __ATOMIC_RELAXED);
    return number;
}

static const char *level_name(int level)
{
    return level == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE"
         : level == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED" : "MPI_THREAD_SERIALIZED";
}

/* The one line, then the end of the job: the other thread is inside MPI
 * now, so neither an error handler (user code that may call MPI) nor a
 * return that leaves the call undone is safe (docs/threads.md). */
_Noreturn static void report(enum cm_call_id id, const char *what)
{
    static int reported;   /* a third thread may fail too: one line */
    if (!__atomic_exchange_n(&reported, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "corempi: %s on rank %d (thread %u): %s; %s granted %s (COREMPI_CHECK=1)\n",
            cm_call_name(id), cm_world_rank_for_messages(), self_number(), what, granted_by,
            level_name(cm_g.thread_level));
    cm_abort_job(MPI_ERR_OTHER, 1);
}

void cm_thread_check_set(int on, const char *by)
{
    if (by)
        granted_by = by;
    if (on && cm_g.thread_level != MPI_THREAD_MULTIPLE) {
        if (!number && !numbers)
            number = numbers = 1;          /* the initialising thread */
        cm_thread_check_on = 1;            /* before the front ends see NULL */
        cm_g.call_word = NULL;
    } else {
        cm_g.call_word = cm_g.self_ctl ? &cm_g.self_ctl->last_call : NULL;
        cm_thread_check_on = 0;
    }
}

unsigned cm_thread_check_enter(enum cm_call_id id)
{
    if (cm_g.self_ctl && !cm_coll_depth)
        __atomic_store_n(&cm_g.self_ctl->last_call, (uint32_t)id, __ATOMIC_RELAXED);
    if (depth++)
        return 0;
    if (cm_g.thread_level == MPI_THREAD_SERIALIZED) {
        uint64_t held = 0, mine = (uint64_t)self_number() << 32 | (uint32_t)id;
        if (!__atomic_compare_exchange_n(&in_mpi, &held, mine, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            char what[96];
            snprintf(what, sizeof what, "called while %s runs in thread %u", cm_call_name((uint32_t)held),
                     (unsigned)(held >> 32));
            report(id, what);
        }
    } else if (!pthread_equal(pthread_self(), cm_g.main_thread)) {
        report(id, "called from a thread other than the main one");
    }
    return 0;
}

void cm_thread_check_leave(unsigned *unused)
{
    (void)unused;
    if (--depth == 0 && cm_g.thread_level == MPI_THREAD_SERIALIZED)
        __atomic_store_n(&in_mpi, 0, __ATOMIC_RELEASE);
}
