/* foreign.c -- tell a program built with another MPI before starting it.
 *
 * A program linked with Open MPI's or MPICH's library and started by this
 * mpirun never joins the job: each rank's MPI_Init makes it a singleton of
 * that other MPI, so N copies run alone and exit 0 in silence.  mpirun reads
 * the libraries the executable names (NEEDED entries of its ELF dynamic
 * section) and refuses, in one line, one that names another MPI's library.
 * Only ELF executables are read: a script, or anything this code cannot
 * parse, is started as before (never a false refusal).  A statically linked
 * foreign program names no library and is not caught here. */
#include "launch/launch.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The sonames of the other MPIs, and who they are.  corempi's own library is
 * the standard ABI's libmpi_abi.so.1 (not listed: it is us). */
static const struct {
    const char *soname, *who, *mpirun;
} foreign[] = {
    {"libmpi.so.40", "Open MPI", "mpirun.openmpi"},
    {"libmpi_mpifh.so.40", "Open MPI", "mpirun.openmpi"},
    {"libmpi_usempif08.so.40", "Open MPI", "mpirun.openmpi"},
    {"libmpich.so.12", "MPICH", "mpirun.mpich"},
    {"libmpi.so.12", "MPICH", "mpirun.mpich"},
    {"libmpifort.so.12", "MPICH", "mpirun.mpich"},
};

#define MAX_PHDRS 4096
#define MAX_DYN (1u << 16)

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
    return off <= (uint64_t)INT64_MAX && pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* File offset of virtual address va through the PT_LOAD headers, or -1. */
static int64_t va_to_off(const Elf64_Phdr *ph, int n, uint64_t va)
{
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va - ph[i].p_vaddr < ph[i].p_filesz)
            return (int64_t)(ph[i].p_offset + (va - ph[i].p_vaddr));
    return -1;
}

/* The first NEEDED library of path that belongs to another MPI (an index of
 * foreign[]), or -1: not one, not a 64-bit ELF, or not readable. */
static int foreign_needed(const char *path, char *name, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int found = -1;
    Elf64_Ehdr eh;
    Elf64_Phdr *ph = NULL;
    Elf64_Dyn *dyn = NULL;
    if (read_at(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
        eh.e_phnum > MAX_PHDRS)
        goto out;
    ph = malloc((size_t)eh.e_phnum * sizeof *ph);
    if (!ph || read_at(fd, ph, (size_t)eh.e_phnum * sizeof *ph, eh.e_phoff) != 0)
        goto out;
    int d = 0;
    while (d < eh.e_phnum && ph[d].p_type != PT_DYNAMIC)
        d++;
    if (d == eh.e_phnum || ph[d].p_filesz == 0 || ph[d].p_filesz > MAX_DYN * sizeof *dyn)
        goto out;
    size_t ndyn = (size_t)(ph[d].p_filesz / sizeof *dyn);
    dyn = malloc(ndyn * sizeof *dyn);
    if (!dyn || read_at(fd, dyn, ndyn * sizeof *dyn, ph[d].p_offset) != 0)
        goto out;
    uint64_t strtab = 0, strsz = 0;
    for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
        if (dyn[i].d_tag == DT_STRTAB)
            strtab = dyn[i].d_un.d_ptr;
        else if (dyn[i].d_tag == DT_STRSZ)
            strsz = dyn[i].d_un.d_val;
    }
    int64_t stroff = strtab ? va_to_off(ph, eh.e_phnum, strtab) : -1;
    if (stroff < 0)
        goto out;
    for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL && found < 0; i++) {
        if (dyn[i].d_tag != DT_NEEDED || dyn[i].d_un.d_val >= strsz)
            continue;
        char lib[128] = {0};
        uint64_t room = strsz - dyn[i].d_un.d_val;
        size_t want = room < sizeof lib - 1 ? (size_t)room : sizeof lib - 1;
        ssize_t got = pread(fd, lib, want, (off_t)((uint64_t)stroff + dyn[i].d_un.d_val));
        if (got <= 0)
            continue;
        lib[got < (ssize_t)want ? got : (ssize_t)want] = '\0';
        for (size_t k = 0; k < sizeof foreign / sizeof foreign[0]; k++)
            if (strcmp(lib, foreign[k].soname) == 0) {
                snprintf(name, len, "%s", lib);
                found = (int)k;
                break;
            }
    }
out:
    free(dyn);
    free(ph);
    close(fd);
    return found;
}

/* This mpirun's directory, where its mpicc is (build/bin or the install's bin). */
static void own_dir(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(buf, len, "corempi's bin directory");
}

int cm_launch_foreign(const char *path, char *why, size_t len)
{
    char lib[128];
    int k = foreign_needed(path, lib, sizeof lib);
    if (k < 0)
        return 0;
    char dir[512], other[PATH_MAX];
    own_dir(dir, sizeof dir);
    int have_other = cm_launch_resolve(foreign[k].mpirun, other, sizeof other) == 0;
    snprintf(why, len, "is linked with %s's %s, not corempi: rebuild it with %s/mpicc (or mpifort), or run it with %s",
             foreign[k].who, lib, dir, have_other ? foreign[k].mpirun : "that MPI's own mpirun");
    return 1;
}
