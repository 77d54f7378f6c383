/* fault.c -- the random stalls behind CM_FAULT (see fault.h). */
#include "shm/fault.h"

#ifdef CM_FAULTS

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cm_fault_armed = 1;

/* Per thread: the thread level stops at MPI_THREAD_SERIALIZED, but the
 * profiler's tests run helper threads. */
static _Thread_local uint64_t rng;
static uint64_t seed;
static double rate = 0.05;
static int started;
static int world_rank = -1;     /* -1 until cm_fault_start */
/* COREMPI_FAULTS and COREMPI_FAULT_REFUSE as core/config.h read them; the
 * library hands them down with the rank (this layer sees no table). */
static const char *faults_spec, *refuse_spec;
static unsigned long points, spins, yields, sleeps;

static uint64_t next(void)
{
    /* xorshift64*: enough to scatter stalls, and reproducible from the seed. */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Dull;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void report(void)
{
    fprintf(stderr, "corempi: rank %d: faults: %lu points, %lu spins, %lu yields, %lu sleeps (seed %llu)\n",
            world_rank, points, spins, yields, sleeps, (unsigned long long)seed);
}

/* First point: parse COREMPI_FAULTS.  Before MPI_Init has set the rank the
 * points wait (the rank goes into the seed). */
static int start(void)
{
    if (world_rank < 0)
        return 0;
    const char *env = faults_spec;
    if (!env || !*env) {
        cm_fault_armed = 0;
        return 0;
    }
    if (!strncmp(env, "time", 4))
        seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
    else
        seed = strtoull(env, NULL, 0);
    const char *comma = strchr(env, ',');
    if (comma && (rate = strtod(comma + 1, NULL)) <= 0)
        rate = 0.05;
    started = 1;
    fprintf(stderr, "corempi: rank %d: fault injection, COREMPI_FAULTS=%llu,%g\n", world_rank,
            (unsigned long long)seed, rate);
    atexit(report);
    return 1;
}

void cm_fault_start(int rank, const char *faults, const char *refuse)
{
    faults_spec = faults;
    refuse_spec = refuse;
    world_rank = rank;
}

void cm_fault_point(const char *site)
{
    (void)site;
    if (!started && !start())
        return;
    if (!rng)
        rng = (seed ^ ((uint64_t)(world_rank + 1) * 0x9E3779B97F4A7C15ull)) | 1;
    points++;
    uint64_t r = next();
    if ((double)(r >> 11) * 0x1.0p-53 >= rate)
        return;
    unsigned kind = (unsigned)(r & 7);          /* 5/8 spin, 2/8 yield, 1/8 sleep */
    unsigned span = (unsigned)((r >> 3) & 0xff);
    if (kind < 5) {
        spins++;
        uint64_t until = now_ns() + 100 + (uint64_t)span * 19;   /* 0.1-5 us */
        while (now_ns() < until)
            __asm__ volatile("" ::: "memory");
    } else if (kind < 7) {
        yields++;
        sched_yield();
    } else {
        sleeps++;
        usleep(10 + span * 190 / 255);           /* 10-200 us */
    }
}

/* COREMPI_FAULT_REFUSE, parsed once after MPI_Init set the rank: the site
 * (empty: none) and the rank (-1: every rank). */
static char refuse_site[64];
static int refuse_rank = -1, refuse_read;

int cm_fault_refused(const char *site)
{
    if (world_rank < 0)
        return 0;
    if (!refuse_read) {
        refuse_read = 1;
        const char *env = refuse_spec;
        if (env && *env) {
            size_t n = strcspn(env, "@");
            if (n >= sizeof refuse_site)
                n = sizeof refuse_site - 1;
            memcpy(refuse_site, env, n);
            refuse_site[n] = 0;
            if (env[n] == '@')
                refuse_rank = atoi(env + n + 1);
            fprintf(stderr, "corempi: rank %d: %s refuses at %s\n", world_rank,
                    refuse_rank < 0 || refuse_rank == world_rank ? "this rank" : "another rank", refuse_site);
        }
    }
    return refuse_site[0] && (refuse_rank < 0 || refuse_rank == world_rank) && !strcmp(site, refuse_site);
}
#endif
