/*
 * env.c -- saying, once per job, when a COREMPI_* setting is not used as given.
 *
 * A setting the library cannot read (COREMPI_EAGER_MAX=abc) must not be
 * ignored in silence: the user would measure the default believing it was
 * their value.  Each reader warns in one line naming the variable, the value
 * and what is used instead.  Every rank reads the same environment, so the
 * job says it once: the first rank to warn about a (name, value) records its
 * hash in the segment header and the others find it there.
 *
 * The settings themselves are read once, by core/config.c.
 */
#include "core/state.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a of "name=value"; 0 is kept for "free slot". */
static uint64_t setting_hash(const char *name, const char *value)
{
    uint64_t h = 14695981039346656037ull;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h = (h ^ '=') * 1099511628211ull;
    for (const char *p = value; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h ? h : 1;
}

/* 1 when this process should print the warning: no other rank has.  Slots are
 * claimed by compare-and-swap from 0 and never freed, so a hash found in
 * any slot was printed by its claimer; with all slots taken every rank
 * prints (more lines, never fewer). */
static int first_to_warn(uint64_t h)
{
    if (!cm_g.hdr)
        return 1;
    for (int i = 0; i < CM_SEG_ENV_WARNED; i++) {
        uint64_t seen = atomic_load_explicit(&cm_g.hdr->env_warned[i], memory_order_acquire);
        if (seen == 0) {
            uint64_t zero = 0;
            if (atomic_compare_exchange_strong(&cm_g.hdr->env_warned[i], &zero, h))
                return 1;
            seen = zero;
        }
        if (seen == h)
            return 0;
    }
    return 1;
}

void cm_env_warn(const char *name, const char *value, const char *why, ...)
{
    /* Readers that cache their value call this once; this list keeps a
     * reader that reads again from repeating itself. */
    enum { SEEN_MAX = 32 };
    static uint64_t seen[SEEN_MAX];
    static int nseen;
    uint64_t h = setting_hash(name, value);
    for (int i = 0; i < nseen; i++)
        if (seen[i] == h)
            return;
    if (nseen < SEEN_MAX)
        seen[nseen++] = h;
    if (!first_to_warn(h))
        return;
    char msg[400];
    va_list ap;
    va_start(ap, why);
    vsnprintf(msg, sizeof msg, why, ap);
    va_end(ap);
    fprintf(stderr, "corempi: %s=%s %s\n", name, value, msg);
}
