/*
 * env.c -- reading COREMPI_* settings, and saying when one is not used as given.
 *
 * A setting the library cannot read (COREMPI_EAGER_MAX=abc) must not be
 * ignored in silence: the user would measure the default believing it was
 * their value.  Each reader warns in one line naming the variable, the value
 * and what is used instead.  Every rank reads the same environment, so the
 * job says it once: the first rank to warn about a (name, value) records its
 * hash in the segment header and the others find it there.
 *
 * Every name read here must be a row of core/config.def: a reader of a name
 * the table does not know stops the program at its first read, so that a new
 * setting cannot stay undocumented (tests/tools/config_table.sh catches the
 * readers that do not come through here).
 */
#include "core/state.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const known_names[] = {
#define CM_CONFIG(name, kind, who, def, values, help) #name,
#include "core/config.def"
#undef CM_CONFIG
};

/* A programming error, not a user's: the name is missing from the table. */
static void check_known(const char *name)
{
    for (size_t i = 0; i < sizeof known_names / sizeof known_names[0]; i++)
        if (!strcmp(known_names[i], name))
            return;
    fprintf(stderr, "corempi: internal error: %s is read but not declared in src/core/config.def\n", name);
    abort();
}

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

/* Parse a size: digits (or 0x and hex digits), then optionally k, m or g
 * (binary multiples), optionally followed by "i" and/or "b" ("16k", "16KiB",
 * "16kb"); surrounding blanks allowed.  0 on success. */
static int parse_size(const char *s, size_t *out)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (!(*s >= '0' && *s <= '9'))
        return -1; /* also refuses "-1", which strtoull would wrap */
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, hex ? 16 : 10);
    if (errno || end == s + (hex ? 2 : 0))
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    }
    if (shift && (*end == 'i' || *end == 'I'))
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end || (shift && v > (SIZE_MAX >> shift)))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

/* 1: name is set to a number, now in *v; 0: unset or empty; -1: set to
 * something else, *text. */
static int read_number(const char *name, size_t *v, const char **text)
{
    check_known(name);
    const char *s = getenv(name);
    *text = s;
    if (!s || !*s)
        return 0;
    return parse_size(s, v) == 0 ? 1 : -1;
}

size_t cm_env_size(const char *name, size_t def)
{
    size_t v;
    const char *s;
    int got = read_number(name, &v, &s);
    if (got < 0)
        cm_env_warn(name, s, "is not a number (like 64, 16k or 2M); using %zu", def);
    return got > 0 ? v : def;
}

int cm_env_flag(const char *name, int def)
{
    size_t v;
    const char *s;
    switch (read_number(name, &v, &s)) {
    case 1: return v != 0;
    case 0: return def;
    }
    cm_env_warn(name, s, "is not 0 or 1; using %d", def);
    return def;
}
