/*
 * config.c -- the COREMPI_* table (core/config.def) filled from one snapshot
 * of the environment (core/config.h).
 */
#include "core/config.h"
#include "core/state.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cm_config_value cm_config_values[CM_CFG_COUNT];
int cm_config_loaded;

enum kind { FLAG, SIZE, COUNT, SECONDS, WORDS, ONEOF, TEXT, FAMILY };

static const struct row {
    const char *name;
    enum kind kind;
} rows[CM_CFG_COUNT] = {
#define CM_CONFIG(name, kind, who, def, values, help) {#name, kind},
#include "core/config.def"
#undef CM_CONFIG
};

/* COREMPI_ variables that name no row: members of the COREMPI_<COLL>
 * family (coll/select.c knows which), or nothing at all. */
enum { OTHERS_MAX = 64 };
static struct { char *name, *text; } others[OTHERS_MAX];
static int nothers;
static unsigned verbose;

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

/* "coll" among the words gives the collectives' bit, and so on; a value
 * naming no layer ("1", "all") gives every bit; "0" none. */
static unsigned parse_verbose(const char *s)
{
    if (!s || !strcmp(s, "0"))
        return 0;
    unsigned v = 0;
    if (strstr(s, "p2p")) v |= CM_VERBOSE_P2P;
    if (strstr(s, "coll")) v |= CM_VERBOSE_COLL;
    if (strstr(s, "init")) v |= CM_VERBOSE_INIT;
    return v ? v : ~0u;
}

static char *copy(const char *s)
{
    char *c = strdup(s);
    if (!c) {
        fputs("corempi: out of memory reading the environment\n", stderr);
        abort();
    }
    return c;
}

static void take(const char *name, size_t len, const char *text)
{
    for (int i = 0; i < CM_CFG_COUNT; i++) {
        if (rows[i].kind == FAMILY || strlen(rows[i].name) != len || memcmp(rows[i].name, name, len))
            continue;
        struct cm_config_value *v = &cm_config_values[i];
        v->text = copy(text);
        switch (rows[i].kind) {
        case FLAG: case SIZE: case COUNT:
            v->state = parse_size(text, &v->number) == 0 ? CM_CONFIG_NUMBER : CM_CONFIG_BAD;
            break;
        default:
            v->state = CM_CONFIG_TEXT;
        }
        return;
    }
    if (nothers < OTHERS_MAX) {
        others[nothers].name = strndup(name, len);
        others[nothers].text = copy(text);
        if (others[nothers].name)
            nothers++;
    }
}

void cm_config_load(void)
{
    extern char **environ;
    if (cm_config_loaded)
        return;
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "COREMPI_", 8) != 0 || !eq || !eq[1])
            continue;   /* empty counts as unset, as it always did */
        take(*e, (size_t)(eq - *e), eq + 1);
    }
    verbose = parse_verbose(cm_config_values[CM_CFG_COREMPI_VERBOSE].text);
    cm_config_loaded = 1;
}

size_t cm_config_bad_size(enum cm_config_id id, size_t def)
{
    cm_env_warn(rows[id].name, cm_config_values[id].text, "is not a number (like 64, 16k or 2M); using %zu", def);
    return def;
}

int cm_config_bad_flag(enum cm_config_id id, int def)
{
    cm_env_warn(rows[id].name, cm_config_values[id].text, "is not 0 or 1; using %d", def);
    return def;
}

unsigned cm_config_verbose(void)
{
    CM_ASSERT(cm_config_loaded, "core/config.h: a read comes after cm_config_load");
    return verbose;
}

const char *cm_config_named(const char *name)
{
    CM_ASSERT(cm_config_loaded, "core/config.h: a read comes after cm_config_load");
    for (int i = 0; i < CM_CFG_COUNT; i++)
        if (rows[i].kind != FAMILY && !strcmp(rows[i].name, name))
            return cm_config_values[i].text;
    for (int i = 0; i < nothers; i++)
        if (!strcmp(others[i].name, name))
            return others[i].text;
    return NULL;
}
