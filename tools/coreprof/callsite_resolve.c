/*
 * callsite_resolve.c -- return addresses -> "file.c:42 (function)".
 *
 * Each rank recorded its loaded objects (/proc/self/maps: start, end, file
 * offset, path).  An address is turned into a file offset inside its object,
 * the file offset into the ELF virtual address through the PT_LOAD segments,
 * and libdwfl (elfutils) looks up the line and the function.  The address
 * looked up is the return address minus one: the call instruction's line.
 * Objects are opened once and cached by path (all ranks run the same binary).
 */
#define _GNU_SOURCE
#include "report.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct obj_cache {
    char *path;
    Dwfl *dwfl;            /* NULL: could not open (then addresses print as path+offset) */
    Dwfl_Module *mod;
} obj_cache;

typedef struct resolver {
    obj_cache *objs;
    size_t nobjs;
    cp_trace *tr;
    /* sites are interned by text so that ranks share entries */
} resolver;

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static obj_cache *open_object(resolver *rs, const char *path)
{
    for (size_t i = 0; i < rs->nobjs; i++)
        if (strcmp(rs->objs[i].path, path) == 0) return &rs->objs[i];
    obj_cache *a = realloc(rs->objs, (rs->nobjs + 1) * sizeof *a);
    if (!a) abort();
    rs->objs = a;
    obj_cache *o = &a[rs->nobjs++];
    memset(o, 0, sizeof *o);
    o->path = strdup(path);
    struct stat st;
    /* [vdso], [heap], anonymous, gone, or not a regular file (never block on a FIFO) */
    if (path[0] != '/' || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return o;
    o->dwfl = dwfl_begin(&offline_callbacks);
    if (!o->dwfl) return o;
    o->mod = dwfl_report_offline(o->dwfl, path, path, -1);
    dwfl_report_end(o->dwfl, NULL, NULL);
    if (!o->mod) { dwfl_end(o->dwfl); o->dwfl = NULL; }
    return o;
}

/* file offset -> address in dwfl's space (ELF vaddr + module bias); 0 on failure */
static uint64_t file_offset_to_addr(obj_cache *o, uint64_t off)
{
    GElf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(o->mod, &bias);
    if (!elf) return 0;
    size_t nph;
    if (elf_getphdrnum(elf, &nph) != 0) return 0;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD) continue;
        if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz)
            return off - ph.p_offset + ph.p_vaddr + bias;
    }
    return 0;
}

static void describe(resolver *rs, const cp_rank *rk, uint64_t addr, char *buf, size_t len)
{
    uint64_t rel = 0;
    const cpt_object *ob = cpt_find_object(&rk->raw, addr, &rel);
    if (!ob) { snprintf(buf, len, "0x%llx (no object)", (unsigned long long)addr); return; }
    char pathcopy[1024];
    snprintf(pathcopy, sizeof pathcopy, "%s", ob->path);
    const char *objname = basename(pathcopy);
    obj_cache *o = open_object(rs, ob->path);
    uint64_t a = o->mod ? file_offset_to_addr(o, rel) : 0;
    if (!a) { snprintf(buf, len, "%s+0x%llx", objname, (unsigned long long)rel); return; }
    a -= 1;   /* inside the call instruction, not after it */
    const char *func = dwfl_module_addrname(o->mod, a);
    Dwfl_Line *line = dwfl_module_getsrc(o->mod, a);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file) {
        char fcopy[1024];
        snprintf(fcopy, sizeof fcopy, "%s", file);
        snprintf(buf, len, "%s:%d (%s)", basename(fcopy), lineno, func ? func : "?");
    } else if (func) {
        snprintf(buf, len, "%s (%s, no line info)", func, objname);
    } else {
        snprintf(buf, len, "%s+0x%llx", objname, (unsigned long long)rel);
    }
}

static int32_t intern_site(cp_trace *tr, const char *s)
{
    for (size_t i = 0; i < tr->nsites; i++)
        if (strcmp(tr->sites[i].where, s) == 0) return (int32_t)i;
    cp_site *a = realloc(tr->sites, (tr->nsites + 1) * sizeof *a);
    if (!a) abort();
    tr->sites = a;
    tr->sites[tr->nsites].where = strdup(s);
    return (int32_t)tr->nsites++;
}

/* per rank, addresses repeat: a small cache address -> site */
typedef struct addr_site { uint64_t addr; int32_t site; } addr_site;

static int cmp_addr(const void *a, const void *b)
{
    const addr_site *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int32_t site_of(const addr_site *as, size_t n, uint64_t addr)
{
    addr_site key = { addr, -1 };
    const addr_site *hit = bsearch(&key, as, n, sizeof *as, cmp_addr);
    return hit ? hit->site : -1;
}

void cp_resolve_callsites(cp_trace *tr, FILE *diag)
{
    resolver rs = { .tr = tr };
    for (int r = 0; r < tr->nranks; r++) {
        cp_rank *rk = &tr->ranks[r];
        /* distinct addresses of this rank, resolved once each */
        addr_site *as = malloc((rk->nev + rk->nagg + 1) * sizeof *as);
        if (!as) abort();
        size_t n = 0;
        for (size_t i = 0; i < rk->nev; i++)
            if (rk->ev[i].caller && rk->ev[i].is_slice) as[n++] = (addr_site){ rk->ev[i].caller, -1 };
        for (size_t i = 0; i < rk->nagg; i++)
            if (rk->agg[i].caller && rk->agg[i].is_slice) as[n++] = (addr_site){ rk->agg[i].caller, -1 };
        qsort(as, n, sizeof *as, cmp_addr);
        size_t u = 0;
        for (size_t i = 0; i < n; i++)
            if (!u || as[u - 1].addr != as[i].addr) as[u++] = as[i];
        for (size_t i = 0; i < u; i++) {
            char buf[1200];
            describe(&rs, rk, as[i].addr, buf, sizeof buf);
            as[i].site = intern_site(tr, buf);
        }
        for (size_t i = 0; i < rk->nev; i++)
            if (rk->ev[i].caller && rk->ev[i].is_slice) rk->ev[i].site = site_of(as, u, rk->ev[i].caller);
        for (size_t i = 0; i < rk->nagg; i++)
            if (rk->agg[i].caller && rk->agg[i].is_slice) rk->agg[i].site = site_of(as, u, rk->agg[i].caller);
        free(as);
    }
    size_t unresolved = 0;
    for (size_t i = 0; i < rs.nobjs; i++) {
        if (!rs.objs[i].dwfl && rs.objs[i].path[0] == '/') unresolved++;
        if (rs.objs[i].dwfl) dwfl_end(rs.objs[i].dwfl);
        free(rs.objs[i].path);
    }
    free(rs.objs);
    if (unresolved && diag)
        fprintf(diag, "coreprof: %zu object file(s) could not be opened for call-site lines "
                      "(moved or deleted since the run?)\n", unresolved);
}
