/*
 * config.h -- every COREMPI_* setting of the library, read once.
 *
 * The rows are core/config.def's.  cm_config_load() takes one snapshot of
 * the environment (at the first MPI_Init, MPI_Session_init, MPI_T_init_thread
 * or MPI_Info_create_env, whichever comes first) and parses every row there:
 * numbers once, COREMPI_VERBOSE once.  Afterwards a read is an index into
 * the table, so the readers keep no lazy caches of their own, and a program
 * that changes its environment after that point changes nothing.
 *
 * A read names the row as written in config.def, so that the table and
 * tests/tools/config_table.sh see every reader:
 *     size_t eager = cm_config_size(COREMPI_EAGER_MAX, 16384);
 * The default stays with the reader (some depend on the machine); the
 * table's default text must agree (config_table.sh checks the constant ones).
 * A value that is not a number gives the default and one warning per job
 * (cm_env_warn), on its first read, when the segment is there to share.
 *
 * Nothing else in src/ reads a COREMPI_ variable (tests/tools/config_reads.sh
 * fails otherwise, and names the argued exceptions).
 */
#ifndef CM_CORE_CONFIG_H
#define CM_CORE_CONFIG_H

#include <stddef.h>
#include "shm/assert.h"

/* One id per row, CM_CFG_<name>; the family row (COREMPI_<COLL>, not a
 * C name) is CM_CFG_FAMILY.  Dispatch on the kind keeps its name unpasted. */
#define CM_CONFIG_ID_FLAG(name) CM_CFG_##name,
#define CM_CONFIG_ID_SIZE(name) CM_CFG_##name,
#define CM_CONFIG_ID_COUNT(name) CM_CFG_##name,
#define CM_CONFIG_ID_SECONDS(name) CM_CFG_##name,
#define CM_CONFIG_ID_WORDS(name) CM_CFG_##name,
#define CM_CONFIG_ID_ONEOF(name) CM_CFG_##name,
#define CM_CONFIG_ID_TEXT(name) CM_CFG_##name,
#define CM_CONFIG_ID_FAMILY(name) CM_CFG_FAMILY,
enum cm_config_id {
#define CM_CONFIG(name, kind, who, def, values, help) CM_CONFIG_ID_##kind(name)
#include "core/config.def"
#undef CM_CONFIG
    CM_CFG_COUNT
};

enum { CM_CONFIG_UNSET, CM_CONFIG_NUMBER, CM_CONFIG_BAD, CM_CONFIG_TEXT };

/* A row's value: its text (NULL: unset or empty) and, for rows whose kind is
 * a number, the number or CM_CONFIG_BAD. */
struct cm_config_value {
    const char *text;
    size_t number;
    unsigned char state;
};

extern struct cm_config_value cm_config_values[CM_CFG_COUNT];
extern int cm_config_loaded;

/* Snapshot the environment and parse every row; later calls do nothing. */
void cm_config_load(void);

/* Slow paths: a value that is not a number (warn once, give def). */
size_t cm_config_bad_size(enum cm_config_id id, size_t def);
int cm_config_bad_flag(enum cm_config_id id, int def);

static inline const struct cm_config_value *cm_config_at(enum cm_config_id id)
{
    CM_ASSERT(cm_config_loaded, "core/config.h: a read comes after cm_config_load");
    return &cm_config_values[id];
}

/* Sizes (64, 16k, 2M) and counts: unset or empty gives def. */
static inline size_t cm_config_size_at(enum cm_config_id id, size_t def)
{
    const struct cm_config_value *v = cm_config_at(id);
    if (__builtin_expect(v->state == CM_CONFIG_UNSET, 1))
        return def;
    return v->state == CM_CONFIG_NUMBER ? v->number : cm_config_bad_size(id, def);
}

/* On/off: 0 is off, any other number on. */
static inline int cm_config_flag_at(enum cm_config_id id, int def)
{
    const struct cm_config_value *v = cm_config_at(id);
    if (__builtin_expect(v->state == CM_CONFIG_UNSET, 1))
        return def;
    return v->state == CM_CONFIG_NUMBER ? v->number != 0 : cm_config_bad_flag(id, def);
}

/* The text as set; NULL when unset or empty. */
static inline const char *cm_config_text_at(enum cm_config_id id)
{
    return cm_config_at(id)->text;
}

#define cm_config_size(name, def) cm_config_size_at(CM_CFG_##name, def)
#define cm_config_flag(name, def) cm_config_flag_at(CM_CFG_##name, def)
#define cm_config_text(name) cm_config_text_at(CM_CFG_##name)
/* A count that must fit an int (the launcher's variables): def when unset. */
#define cm_config_int(name, def) ((int)cm_config_size_at(CM_CFG_##name, (size_t)(def)))

/* COREMPI_VERBOSE as CM_VERBOSE_* bits (core/state.h): 0 when unset or 0,
 * every bit when it names no layer ("1", "all"). */
unsigned cm_config_verbose(void);

/* A member of the COREMPI_<COLL> family by its full name, or any row by its
 * name (MPI_T asks by name): the text, NULL when unset or empty. */
const char *cm_config_named(const char *name);

#endif
