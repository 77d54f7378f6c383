/*
 * thread.h -- MPI_THREAD_MULTIPLE: the level flag and the locks' one shape.
 *
 * The level is set once, in MPI_Init_thread, before any other thread may
 * call MPI (docs/threads.md, "The rule for the fast paths").  Every lock of
 * the library is taken through cm_mt_lock/cm_mt_unlock, which test cm_mt
 * first: at SINGLE, FUNNELED and SERIALIZED a lock costs one predictable
 * branch and nothing else.  Where even that branch would sit on the 8-byte
 * latency path, the caller tests cm_mt once and takes a separate function.
 *
 * Until every function is safe, MULTIPLE is granted only when the process
 * sets COREMPI_THREAD_MULTIPLE=1 (experimental; docs/threads.md says what is
 * safe so far).
 */
#ifndef CM_CORE_THREAD_H
#define CM_CORE_THREAD_H

#include <pthread.h>
#include <stddef.h>

/* 1 while the thread level is MPI_THREAD_MULTIPLE; written only at init. */
extern int cm_mt;

/* The thread level MPI_Init_thread provides for required (mpi/init.c). */
int cm_thread_level_for(int required);

static inline void cm_mt_lock(pthread_mutex_t *m)
{
    if (__builtin_expect(cm_mt, 0))
        pthread_mutex_lock(m);
}
static inline void cm_mt_unlock(pthread_mutex_t *m)
{
    if (__builtin_expect(cm_mt, 0))
        pthread_mutex_unlock(m);
}

/* A table that lookups read without a lock grows by replacing its array:
 * the new one (new_bytes, zero-filled past old_bytes) gets old's contents
 * and old is kept until the process ends, so a lookup that loaded the old
 * pointer still reads valid memory.  NULL when out of memory (old stays). */
void *cm_table_grow(void *old, size_t old_bytes, size_t new_bytes);

/* Claims a slot of a table of pointers that lookups read without a lock:
 * the first empty one from index first on, else the next past *len (the
 * array grown by cm_table_grow when *cap is reached, to mincap at first),
 * stores obj there (release) and returns its index; -1 when out of
 * memory.  The array is stored before the length.  The caller holds the
 * table's lock (under MPI_THREAD_MULTIPLE). */
int cm_table_claim(void ***arr, int *len, int *cap, int first, int mincap, void *obj);

/* A lock-free lookup's load of a word another thread may store meanwhile
 * (a table's array or length, grown by cm_table_grow).  The lookup of a
 * handle happens after the handle's creation (the caller got the handle
 * from its creator), so what it needs is already visible; a concurrent
 * growth for another handle only swaps in an array with the same entries.
 * Plain: an x86 load of an aligned word is atomic, and an __atomic load of
 * a hidden global costs an lea more (on the 8-byte allreduce path: two
 * instructions of 284).  ThreadSanitizer builds see the acquire it is on
 * x86 (the array is stored with release after cm_table_grow filled it, and
 * the entry's load depends on the array's, so the compiler cannot hoist
 * it); as relaxed, TSan reported a lookup reading the new array's copy. */
#ifdef __SANITIZE_THREAD__
#define CM_RACY_LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#else
#define CM_RACY_LOAD(x) (x)
#endif

/* Thread-local state that a single-threaded process keeps as plain
 * globals: initial-exec TLS costs the same loads as a global in a shared
 * library (a GOT entry, then an %fs-relative access). */
#define CM_THREAD_LOCAL __thread __attribute__((tls_model("initial-exec")))

#endif
