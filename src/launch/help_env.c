/* help_env.c -- mpirun --help-env: the table of COREMPI_* variables.
 *
 * Printed from core/config.def itself, so the list cannot drift from what
 * the library reads.  The variables mpirun sets for the ranks (INTERNAL)
 * are no user's business and stay out.  The launcher may include no header
 * of core (src/layers.txt on the layers branch); the table is data it
 * prints, so the build names its file (CM_CONFIG_DEF, src/CMakeLists.txt). */
#include "launch/launch.h"

#include <stdio.h>
#include <string.h>

struct row {
    const char *name, *kind, *who, *def, *values, *help;
};

static const struct row rows[] = {
#define CM_CONFIG(name, kind, who, def, values, help) {#name, #kind, #who, def, values, help},
#include CM_CONFIG_DEF
#undef CM_CONFIG
};

static void print_group(FILE *out, const char *who, const char *title)
{
    fprintf(out, "%s\n", title);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct row *r = &rows[i];
        if (strcmp(r->who, who))
            continue;
        char kind[16];
        size_t k;
        for (k = 0; r->kind[k] && k + 1 < sizeof kind; k++)
            kind[k] = (char)(r->kind[k] | 0x20);   /* SIZE -> size: all letters */
        kind[k] = '\0';
        fprintf(out, "  %-26s %-7s default %s; %s\n", r->name, kind, r->def, r->values);
        fprintf(out, "      %s\n", r->help);
    }
}

void cm_launch_help_env(FILE *out)
{
    fprintf(out, "corempi's environment variables (src/core/config.def).  Sizes take k, m, g\n"
                 "(16k, 2M); a value that cannot be used is reported once per job.\n\n");
    print_group(out, "JOB", "Read by the library in every rank:");
    print_group(out, "MPIRUN", "\nRead by mpirun:");
    print_group(out, "MPICC", "\nRead by mpicc:");
}
