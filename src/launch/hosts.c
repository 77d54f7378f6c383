/* hosts.c -- -H/--host and --hostfile: accepted when they name this machine.
 *
 * corempi runs the ranks of one job on one node, so a host list can only say
 * "here, with S slots"; the slots size the job when -n is not given, as with
 * both peers.  Any other host is refused before anything starts, with the way
 * to run the same program across nodes. */
#include "launch/launch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_this_machine(const char *host)
{
    char me[256] = "";
    if (!strcmp(host, "localhost") || !strcmp(host, "127.0.0.1") || !strcmp(host, "::1"))
        return 1;
    if (gethostname(me, sizeof me - 1) != 0 || !*me)
        return 0;
    if (!strcasecmp(host, me))
        return 1;
    /* "node1" for "node1.example.org", and the other way round */
    size_t hs = strcspn(host, "."), ms = strcspn(me, ".");
    return hs == ms && !strncasecmp(host, me, hs) && (!host[hs] || !me[ms]);
}

static int refuse(const char *where, const char *host)
{
    char me[256] = "localhost";
    gethostname(me, sizeof me - 1);
    fprintf(stderr, "mpirun: %s: host '%s' is not this machine (%s): corempi runs a job on one node; "
                    "across nodes, build the program with Open MPI's or MPICH's mpicc and run their mpirun\n",
            where, host, me);
    return 2;
}

/* "host" or "host:slots"; adds the slots. */
static int one_host(struct cm_launch_opts *o, const char *where, const char *entry, size_t len)
{
    char host[256];
    int slots = 1;
    const char *colon = memchr(entry, ':', len);
    size_t hlen = colon ? (size_t)(colon - entry) : len;
    if (hlen == 0 || hlen >= sizeof host) {
        fprintf(stderr, "mpirun: %s: bad host entry '%.*s'\n", where, (int)len, entry);
        return 2;
    }
    memcpy(host, entry, hlen);
    host[hlen] = '\0';
    if (colon) {
        char *end;
        errno = 0;
        long v = strtol(colon + 1, &end, 10);
        if (errno || end == colon + 1 || end != entry + len || v <= 0 || v > 65536) {
            fprintf(stderr, "mpirun: %s: bad slot count in '%.*s' (host:N with N > 0)\n", where, (int)len, entry);
            return 2;
        }
        slots = (int)v;
    }
    if (!is_this_machine(host))
        return refuse(where, host);
    o->slots += slots;
    return 0;
}

int cm_launch_hosts(struct cm_launch_opts *o, const char *list)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len && one_host(o, "-H", p, len) != 0)
            return 2;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* Lines "host", "host:N", "host slots=N [max_slots=M]"; '#' starts a comment. */
int cm_launch_hostfile(struct cm_launch_opts *o, const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "mpirun: --hostfile %s: %s\n", file, strerror(errno));
        return 2;
    }
    char line[1024], where[1200];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        snprintf(where, sizeof where, "--hostfile %s line %d", file, lineno);
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *save = NULL, *host = strtok_r(line, " \t\r\n", &save);
        if (!host)
            continue;
        int before = o->slots;
        if ((rc = one_host(o, where, host, strlen(host))) != 0)
            break;
        for (char *w = strtok_r(NULL, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
            int n;
            char *end;
            if (!strncmp(w, "slots=", 6) || !strncmp(w, "cpu=", 4) || !strncmp(w, "cpus=", 5)) {
                const char *num = strchr(w, '=') + 1;
                errno = 0;
                long v = strtol(num, &end, 10);
                n = errno || end == num || *end || v <= 0 || v > 65536 ? -1 : (int)v;
                if (n < 0) {
                    fprintf(stderr, "mpirun: %s: bad '%s' (slots=N with N > 0)\n", where, w);
                    rc = 2;
                    break;
                }
                o->slots = before + n;
            } else if (strncmp(w, "max_slots=", 10) != 0) {
                fprintf(stderr, "mpirun: %s: unknown word '%s' (known: slots=N, max_slots=N)\n", where, w);
                rc = 2;
                break;
            }
        }
    }
    fclose(f);
    return rc;
}
