/*
 * futex.h -- the library's one path to the futex system call: every sleep
 * on a shared word (a rank's doorbell, shm/wait.c; the collective engine's
 * epoch, FIFO and counter words, coll/direct/) goes through here.
 *
 * The words live in the shared segment, mapped by several processes, so the
 * operations are the shared (not FUTEX_PRIVATE_FLAG) ones.  A 64-bit word is
 * waited on through its low half (little-endian): the caller passes the
 * address of the 64-bit word and the low 32 bits it saw.
 *
 * A wait returns after a wake-up, the timeout (NULL: none), a signal, or at
 * once when the word no longer holds `seen`: callers always re-check their
 * condition, never trust the return.
 */
#ifndef CM_SHM_FUTEX_H
#define CM_SHM_FUTEX_H

#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline void cm_futex_wait(void *word, uint32_t seen, const struct timespec *timeout)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, timeout, NULL, 0);
}

/* Wake up to `waiters` sleepers on word (INT_MAX: all). */
static inline void cm_futex_wake(void *word, int waiters)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, waiters, NULL, NULL, 0);
}

#endif
