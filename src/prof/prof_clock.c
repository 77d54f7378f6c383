/*
 * prof_clock.c -- nanoseconds for the records.  rdtsc where the TSC is constant
 * and nonstop (cheaper than clock_gettime, especially under a hypervisor),
 * converted to CLOCK_MONOTONIC ns with a factor calibrated at start-up, so that
 * times from all ranks share one clock.  COREPROF_CLOCK=monotonic forces
 * clock_gettime.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "prof_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

cm_prof_clock_t cm_prof_clock;
#if defined(__x86_64__)
static uint64_t first_tsc, first_ns;   /* the start of calibration, for cm_prof_clock_refine */
#endif

uint64_t cm_prof_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static uint64_t read_tsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static int tsc_is_usable(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[4096];
    int ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0) {
            ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    }
    fclose(f);
    return ok;
}
#endif

void cm_prof_clock_init(void)
{
    cm_prof_clock.use_tsc = 0;
#if defined(__x86_64__)
    const char *force = getenv("COREPROF_CLOCK");
    if (force && strcmp(force, "monotonic") == 0) return;
    if (!tsc_is_usable()) return;
    /* 20 ms against CLOCK_MONOTONIC: error ~1e-5, i.e. 10 us per second of run. */
    uint64_t n0 = cm_prof_monotonic_ns(), c0 = read_tsc();
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    uint64_t n1 = cm_prof_monotonic_ns(), c1 = read_tsc();
    if (c1 <= c0 || n1 <= n0) return;
    cm_prof_clock.mult = (uint64_t)((((unsigned __int128)(n1 - n0)) << 32) / (c1 - c0));
    cm_prof_clock.tsc0 = c1;
    cm_prof_clock.ns0 = n1;
    cm_prof_clock.use_tsc = 1;
    first_tsc = c0;
    first_ns = n0;
#endif
}

/* Called at the end of MPI_Init, usually hundreds of ms after cm_prof_clock_init:
 * the longer span makes the factor ~10x more exact, so the clocks of the ranks
 * drift apart less after the offset measurement. */
void cm_prof_clock_refine(void)
{
#if defined(__x86_64__)
    if (!cm_prof_clock.use_tsc) return;
    uint64_t n1 = cm_prof_monotonic_ns(), c1 = read_tsc();
    if (c1 <= first_tsc || n1 - first_ns < 100 * 1000 * 1000ull) return;
    cm_prof_clock.mult = (uint64_t)((((unsigned __int128)(n1 - first_ns)) << 32) / (c1 - first_tsc));
    cm_prof_clock.tsc0 = c1;
    cm_prof_clock.ns0 = n1;
#endif
}
