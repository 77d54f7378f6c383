/* pattern.c -- communication matrices and their CSV form (mapper.h). */
#include "topo/mapper.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int cm_pattern_alloc(struct cm_comm_pattern *p, int n)
{
    p->n = n;
    p->bytes = calloc((size_t)n * n + 1, sizeof *p->bytes);
    p->msgs = calloc((size_t)n * n + 1, sizeof *p->msgs);
    if (!p->bytes || !p->msgs) {
        cm_pattern_free(p);
        return -1;
    }
    return 0;
}

void cm_pattern_free(struct cm_comm_pattern *p)
{
    free(p->bytes);
    free(p->msgs);
    memset(p, 0, sizeof *p);
}

struct flow {
    long src, dst;
    double bytes, count;
};

/* One data line; 1 parsed, 0 not numeric at all, -1 malformed. */
static int parse_line(const char *s, struct flow *f)
{
    char *end;
    double v[4];
    int k = 0;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s) && *s != '-' && *s != '+' && *s != '.')
        return 0;
    for (; k < 4; k++) {
        v[k] = strtod(s, &end);
        if (end == s)
            return -1;
        s = end;
        while (isspace((unsigned char)*s))
            s++;
        if (*s != ',')
            break;
        s++;
    }
    if (*s != '\0' || k < 2 || k > 3)
        return -1;
    f->src = (long)v[0];
    f->dst = (long)v[1];
    f->bytes = v[2];
    f->count = k == 3 ? v[3] : 1;
    if (f->src != v[0] || f->dst != v[1] || f->src < 0 || f->dst < 0 || f->src >= 1 << 20 || f->dst >= 1 << 20 ||
        !(f->bytes >= 0) || !(f->count >= 0))
        return -1;
    return 1;
}

int cm_pattern_read_csv(FILE *in, struct cm_comm_pattern *p, char *err, size_t errlen)
{
    char line[512];
    struct flow *flows = NULL;
    size_t nf = 0, cap = 0;
    long ranks = -1, highest = -1;
    int lineno = 0;
    memset(p, 0, sizeof *p);
    while (fgets(line, sizeof line, in)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#') {
            long r;
            if (sscanf(line, "# ranks %ld", &r) == 1) {
                if (r < 1 || r > 1 << 20) {
                    snprintf(err, errlen, "line %d: bad rank count '%s'", lineno, line + 2);
                    goto fail;
                }
                ranks = r;
            }
            continue;
        }
        struct flow f;
        int rc = parse_line(line, &f);
        if (rc == 0 && (nf == 0 && lineno <= 2 && strchr(line, ',')))
            continue; /* a header */
        if (rc == 0 && line[strspn(line, " \t")] == '\0')
            continue;
        if (rc != 1) {
            snprintf(err, errlen, "line %d: expected src,dst,bytes[,count] with ranks >= 0, got '%.60s'", lineno,
                     line);
            goto fail;
        }
        if (nf == cap) {
            cap = cap ? 2 * cap : 64;
            struct flow *g = realloc(flows, cap * sizeof *g);
            if (!g) {
                snprintf(err, errlen, "out of memory");
                goto fail;
            }
            flows = g;
        }
        flows[nf++] = f;
        if (f.src > highest)
            highest = f.src;
        if (f.dst > highest)
            highest = f.dst;
    }
    if (ranks < 0)
        ranks = highest + 1;
    if (ranks < 1) {
        snprintf(err, errlen, "no src,dst,bytes line and no '# ranks N' line");
        goto fail;
    }
    if (highest >= ranks) {
        snprintf(err, errlen, "rank %ld named, but '# ranks %ld' says there are %ld", highest, ranks, ranks);
        goto fail;
    }
    if (cm_pattern_alloc(p, (int)ranks) != 0) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < nf; i++) {
        size_t k = (size_t)flows[i].src * p->n + flows[i].dst;
        p->bytes[k] += flows[i].bytes;
        p->msgs[k] += flows[i].count;
    }
    free(flows);
    return 0;
fail:
    free(flows);
    return -1;
}
