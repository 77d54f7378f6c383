/*
 * assert.h -- invariants checked in debug and sanitizer builds, free in release.
 *
 * CM_ASSERT(cond, id) states a fact the code below it relies on; id names
 * where the fact is written down, usually an invariant of docs/protocols.md
 * ("I-RING-1").  As SQLite's assert(): a build configured with
 * -DCOREMPI_ASSERT=ON (the default of Debug builds and of -DCOREMPI_SANITIZE=ON,
 * CMakeLists.txt) defines CM_ASSERTS, and a broken invariant stops the
 * process with its id, file and line.  Every other build compiles the
 * condition away: it is never evaluated (so it must not have side effects),
 * it only keeps its variables "used" through sizeof.  A release build's
 * object code is the same with or without the asserts (docs/protocols.md,
 * "Invariants in the code").
 *
 * In the bottom layer so that every layer may include it.
 */
#ifndef CM_SHM_ASSERT_H
#define CM_SHM_ASSERT_H

#ifdef CM_ASSERTS
void cm_assert_fail(const char *cond, const char *id, const char *file, int line) __attribute__((noreturn, cold));
#define CM_ASSERT(cond, id) \
    (__builtin_expect(!!(cond), 1) ? (void)0 : cm_assert_fail(#cond, id, __FILE__, __LINE__))
#else
#define CM_ASSERT(cond, id) ((void)sizeof(!(cond)))
#endif

#endif
