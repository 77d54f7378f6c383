/*
 * prof_signals.c -- on a crash or a kill request, write what is still in memory
 * (best effort), then let the signal do what it would have done: the previous
 * handler (the MPI library's, if any) or the default action.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "prof_internal.h"

#include <signal.h>
#include <string.h>

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};
#define N_SIGNALS (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction previous[N_SIGNALS];
static int installed;

static void on_crash(int sig)
{
    cm_prof_on = 0;
    cm_prof_buffer_crash_flush();
    for (unsigned i = 0; i < N_SIGNALS; i++)
        if (crash_signals[i] == sig) sigaction(sig, &previous[i], NULL);
    /* blocked until we return; then delivered to the previous disposition.
     * A fault re-executes the faulting instruction and raises it again anyway. */
    raise(sig);
}

void cm_prof_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    for (unsigned i = 0; i < N_SIGNALS; i++) sigaction(crash_signals[i], &sa, &previous[i]);
    installed = 1;
}

void cm_prof_signals_remove(void)
{
    if (!installed) return;
    for (unsigned i = 0; i < N_SIGNALS; i++) {
        struct sigaction now;
        /* put back the previous handler only if ours is still the one in place */
        if (sigaction(crash_signals[i], NULL, &now) == 0 && now.sa_handler == on_crash)
            sigaction(crash_signals[i], &previous[i], NULL);
    }
    installed = 0;
}
