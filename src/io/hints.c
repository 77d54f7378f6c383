/*
 * hints.c -- the file hints that change what src/io does, with ROMIO's
 * meaning (docs/io.md has the table): collective buffering (cb_nodes,
 * cb_buffer_size, romio_cb_read/write, striping_unit), data sieving
 * (romio_ds_read/write, ind_rd/wr_buffer_size) and direct_io (O_DIRECT
 * for large aligned contiguous requests).  Unknown keys are kept for
 * get_info but change nothing; a value that does not parse leaves the
 * hint as it was.
 *
 * Hints are set collectively (open, set_view, set_info).  Those that the
 * group must agree on -- everything but the sieving buffer sizes and
 * romio_ds_read -- are taken from rank 0, as ROMIO does; the aggregators
 * are then chosen here, once per change, from the machine: the lowest
 * rank of each L3 group (else NUMA node) first, then the other ranks.
 */
#include "io/io.h"
#include "core/state.h"
#include "topo/domain.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void cm_io_hints_default(struct cm_file *f)
{
    struct cm_io_hints *h = &f->hints;
    h->cb_read = h->cb_write = CM_IO_AUTO;
    h->cb_nodes = 0;
    h->cb_buffer_size = (MPI_Offset)16 << 20;
    h->striping_unit = 0;
    h->ds_read = h->ds_write = CM_IO_AUTO;
    h->ind_rd_buffer_size = (MPI_Offset)4 << 20;
    h->ind_wr_buffer_size = (MPI_Offset)512 << 10;
    h->direct_io = 0;
    h->naggs = 0;
    h->aggs = NULL;
    f->dfd = -1;
}

static const char *const modes[] = { "automatic", "enable", "disable" };

static void get_mode(MPI_Info info, const char *key, int *out)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int len = MPI_MAX_INFO_VAL, flag = 0;
    PMPI_Info_get_string(info, key, &len, val, &flag);
    for (int m = 0; flag && m < 3; m++)
        if (!strcasecmp(val, modes[m]))
            *out = m;
}

/* A positive size in bytes, at most max. */
static void get_size(MPI_Info info, const char *key, MPI_Offset max, MPI_Offset *out)
{
    char val[MPI_MAX_INFO_VAL + 1], *end;
    int len = MPI_MAX_INFO_VAL, flag = 0;
    PMPI_Info_get_string(info, key, &len, val, &flag);
    if (!flag)
        return;
    long long v = strtoll(val, &end, 10);
    if (end != val && !*end && v > 0 && v <= max)
        *out = v;
}

static void get_bool(MPI_Info info, const char *key, int *out)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int len = MPI_MAX_INFO_VAL, flag = 0;
    PMPI_Info_get_string(info, key, &len, val, &flag);
    if (flag && (!strcasecmp(val, "true") || !strcasecmp(val, "enable")))
        *out = 1;
    else if (flag && (!strcasecmp(val, "false") || !strcasecmp(val, "disable")))
        *out = 0;
}

/* My L3 group (else NUMA node), or -1 when the machine does not say. */
static int my_domain(void)
{
    int core = cm_g.self_ctl ? cm_g.self_ctl->bound_core : -1;
    if (core < 0 || cm_topo_machine_ready())
        return -1;
    int d = cm_topo_domain_of_core(CM_TOPO_L3, core);
    return d >= 0 ? d : cm_topo_domain_of_core(CM_TOPO_NUMA, core);
}

/* The aggregators in order of preference: the first rank of each domain,
 * then every other rank; the first cb_nodes of them (default: one per
 * domain) act.  An unplaced rank counts as a domain of its own only when
 * no rank is placed (then rank 0 alone aggregates). */
static int choose_aggregators(struct cm_file *f)
{
    int n = f->size, mine = my_domain(), *dom = malloc((size_t)n * sizeof *dom);
    int *order = malloc((size_t)n * sizeof *order), *taken = calloc((size_t)n, sizeof *taken);
    if (!dom || !order || !taken) {
        free(dom), free(order), free(taken);
        return MPI_ERR_NO_MEM;
    }
    PMPI_Allgather(&mine, 1, MPI_INT, dom, 1, MPI_INT, f->comm);
    int k = 0, ndom = 0;
    for (int r = 0; r < n; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = dom[q] != dom[r];
        if (first && (dom[r] >= 0 || r == 0)) {
            order[k++] = r;
            taken[r] = 1;
        }
    }
    ndom = k;
    for (int r = 0; r < n; r++)
        if (!taken[r])
            order[k++] = r;
    int want = f->hints.cb_nodes > 0 ? f->hints.cb_nodes : ndom;
    free(f->hints.aggs);
    f->hints.naggs = want < n ? want : n;
    f->hints.aggs = order;
    free(dom);
    free(taken);
    return MPI_SUCCESS;
}

/* O_DIRECT needs a descriptor of its own (the page-cached one stays for
 * everything unaligned); a file system that refuses it turns the hint off. */
static void direct_open(struct cm_file *f)
{
    if (f->dfd >= 0)
        close(f->dfd);
    f->dfd = -1;
    if (!f->hints.direct_io)
        return;
    int acc = f->amode & MPI_MODE_RDONLY ? O_RDONLY : f->amode & MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
    f->dfd = open(f->name, acc | O_DIRECT | O_CLOEXEC);
    if (f->dfd < 0)
        f->hints.direct_io = 0;
}

/* The agreed part travels as one array of rank 0's values. */
enum { A_CBR, A_CBW, A_NODES, A_BUF, A_STRIPE, A_DSW, A_DIRECT, A_N };

int cm_io_hints_apply(struct cm_file *f, MPI_Info info)
{
    struct cm_io_hints *h = &f->hints;
    /* A bad info still takes part in the collective steps below. */
    int n = 0, bad = info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &n);
    if (bad)
        info = MPI_INFO_NULL, n = 0;
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int len = MPI_MAX_INFO_VAL, flag = 0;
        PMPI_Info_get_nthkey(info, i, key);
        PMPI_Info_get_string(info, key, &len, val, &flag);
        if (flag)
            PMPI_Info_set(f->info, key, val);
    }
    if (info != MPI_INFO_NULL) {
        get_mode(info, "romio_cb_read", &h->cb_read);
        get_mode(info, "romio_cb_write", &h->cb_write);
        MPI_Offset nodes = h->cb_nodes;
        get_size(info, "cb_nodes", f->size, &nodes);
        h->cb_nodes = (int)nodes;
        get_size(info, "cb_buffer_size", (MPI_Offset)1 << 30, &h->cb_buffer_size);
        get_size(info, "striping_unit", (MPI_Offset)1 << 30, &h->striping_unit);
        get_mode(info, "romio_ds_read", &h->ds_read);
        get_mode(info, "romio_ds_write", &h->ds_write);
        get_size(info, "ind_rd_buffer_size", (MPI_Offset)1 << 30, &h->ind_rd_buffer_size);
        get_size(info, "ind_wr_buffer_size", (MPI_Offset)1 << 30, &h->ind_wr_buffer_size);
        get_bool(info, "direct_io", &h->direct_io);
    }
    long long a[A_N] = { h->cb_read, h->cb_write, h->cb_nodes, h->cb_buffer_size, h->striping_unit, h->ds_write,
                         h->direct_io };
    PMPI_Bcast(a, A_N, MPI_LONG_LONG, 0, f->comm);
    h->cb_read = (int)a[A_CBR];
    h->cb_write = (int)a[A_CBW];
    h->cb_nodes = (int)a[A_NODES];
    h->cb_buffer_size = a[A_BUF];
    h->striping_unit = a[A_STRIPE];
    h->ds_write = (int)a[A_DSW];
    h->direct_io = (int)a[A_DIRECT];
    direct_open(f);
    int rc = choose_aggregators(f);
    return rc ? rc : bad ? MPI_ERR_INFO : MPI_SUCCESS;
}

void cm_io_hints_free(struct cm_file *f)
{
    free(f->hints.aggs);
    f->hints.aggs = NULL;
    if (f->dfd >= 0)
        close(f->dfd);
    f->dfd = -1;
}

static void put(MPI_Info info, const char *key, long long v)
{
    char s[32];
    snprintf(s, sizeof s, "%lld", v);
    PMPI_Info_set(info, key, s);
}

int cm_io_hints_report(const struct cm_file *f, MPI_Info *out)
{
    int rc = PMPI_Info_dup(f->info, out);
    if (rc)
        return rc;
    const struct cm_io_hints *h = &f->hints;
    PMPI_Info_set(*out, "romio_cb_read", modes[h->cb_read]);
    PMPI_Info_set(*out, "romio_cb_write", modes[h->cb_write]);
    put(*out, "cb_nodes", h->naggs);
    put(*out, "cb_buffer_size", h->cb_buffer_size);
    if (h->striping_unit)
        put(*out, "striping_unit", h->striping_unit);
    PMPI_Info_set(*out, "romio_ds_read", modes[h->ds_read]);
    PMPI_Info_set(*out, "romio_ds_write", modes[h->ds_write]);
    put(*out, "ind_rd_buffer_size", h->ind_rd_buffer_size);
    put(*out, "ind_wr_buffer_size", h->ind_wr_buffer_size);
    PMPI_Info_set(*out, "direct_io", h->direct_io ? "true" : "false");
    char list[MPI_MAX_INFO_VAL + 1] = "";
    size_t used = 0;
    for (int i = 0; i < h->naggs && used + 12 < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", i ? " " : "", h->aggs[i]);
    PMPI_Info_set(*out, "corempi_aggregators", list);
    return MPI_SUCCESS;
}
