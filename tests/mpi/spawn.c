/* spawn.c -- MPI_Comm_spawn / spawn_multiple / get_parent / disconnect and
 * MPI_UNIVERSE_SIZE.  The program is its own child: argv[1] says which part
 * to play.
 *
 *   spawn basic K U     parents spawn K children (root: the last rank), then
 *                       point-to-point both ways, Bcast and Allreduce on the
 *                       intercommunicator, Allreduce on Intercomm_merge,
 *                       disconnect; U (0: do not check) is MPI_UNIVERSE_SIZE
 *   spawn multi         spawn_multiple of two commands (1 + 2 children,
 *                       MPI_ARGV_NULL for the first): appnum and argv checked
 *   spawn errors        a missing binary, too many processes, another host,
 *                       bad arguments: the error class at every parent, no
 *                       hang; a good spawn afterwards still works
 *   spawn crash         the child dies of SIGSEGV: mpirun ends the job
 *   spawn universe      the default MPI_UNIVERSE_SIZE: the largest of 64, the cores, the world
 *   spawn singleton     without mpirun: MPI_ERR_SPAWN, "needs mpirun"
 *   spawn rounds N K    N rounds of: spawn K children, a message each way,
 *                       disconnect -- in a universe with room for K children
 *                       only, so each round reuses the slots of the last;
 *                       the program's live processes stay at most world + K
 *   spawn rounds_busy N K  the same, but every parent but the root makes
 *                       progress sweeps (MPI_Iprobe) for 20 ms while mpirun
 *                       gives the slots to the new children, and every
 *                       parent exchanges a message with every child: a
 *                       parent that looked at reuse_epoch too early (before
 *                       the slots' gens moved) keeps the old rings
 *   spawn lookup DIR    (spawn_lookup.sh) commands without '/': found in the
 *                       current directory DIR, in the info key path, in wdir;
 *                       one found nowhere is MPI_ERR_SPAWN naming where it looked;
 *                       DIR/cm-spawn-foreign (linked with another MPI) refused
 */
#include <dirent.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int wrank, wsize;

static char self_path[4096];

static void child_basic(MPI_Comm parent)
{
    int prank_size, k = wsize;
    MPI_Comm_remote_size(parent, &prank_size);
    int inter;
    MPI_Comm_test_inter(parent, &inter);
    CHECK(inter, "the parent communicator is not an intercommunicator");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(parent, name, &len);
    CHECK(!strcmp(name, "MPI_COMM_PARENT"), "parent's name is '%s'", name);
    /* point-to-point: from parent 0, back to parent (rank % parents) */
    int v;
    MPI_Recv(&v, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE);
    CHECK(v == 100 + wrank, "got %d from parent 0, expected %d", v, 100 + wrank);
    v *= 2;
    MPI_Send(&v, 1, MPI_INT, wrank % prank_size, 8, parent);
    /* Bcast from the parents' rank 0 */
    int b = -1;
    MPI_Bcast(&b, 1, MPI_INT, 0, parent);
    CHECK(b == 4242, "bcast gave %d", b);
    /* Allreduce across groups: each gets the other group's sum */
    int mine = 1000 + wrank, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, parent);
    CHECK(sum == prank_size * (prank_size - 1) / 2, "allreduce over the intercomm gave %d", sum);
    MPI_Comm merged;
    MPI_Intercomm_merge(parent, 1, &merged);
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == prank_size + k && mrank == prank_size + wrank, "merged rank %d of %d", mrank, msize);
    int total = 0;
    MPI_Allreduce(&mrank, &total, 1, MPI_INT, MPI_SUM, merged);
    CHECK(total == msize * (msize - 1) / 2, "allreduce over the merged comm gave %d", total);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&parent);
    CHECK(parent == MPI_COMM_NULL, "disconnect did not set MPI_COMM_NULL");
    MPI_Comm again;
    MPI_Comm_get_parent(&again);
    CHECK(again == MPI_COMM_NULL, "get_parent after disconnect is not MPI_COMM_NULL");
}

static void parent_basic(int k, int universe)
{
    int *flagp, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flagp, &flag);
    CHECK(flag, "MPI_UNIVERSE_SIZE is not set");
    if (universe)
        CHECK(*flagp == universe, "MPI_UNIVERSE_SIZE is %d, expected %d", *flagp, universe);
    CHECK(*flagp >= wsize, "MPI_UNIVERSE_SIZE %d is below the world's size %d", *flagp, wsize);
    char *args[] = { "child", NULL };
    int errcodes[8];
    MPI_Comm inter;
    int root = wsize - 1;
    int rc = MPI_Comm_spawn(self_path, args, k, MPI_INFO_NULL, root, MPI_COMM_WORLD, &inter, errcodes);
    CHECK(rc == MPI_SUCCESS, "spawn returned %d", rc);
    for (int i = 0; i < k; i++)
        CHECK(errcodes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, errcodes[i]);
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == k, "remote size %d, expected %d", rsize, k);
    if (wrank == 0)
        for (int i = 0; i < k; i++) {
            int v = 100 + i;
            MPI_Send(&v, 1, MPI_INT, i, 7, inter);
        }
    for (int i = wrank; i < k; i += wsize) {
        int v;
        MPI_Recv(&v, 1, MPI_INT, i, 8, inter, MPI_STATUS_IGNORE);
        CHECK(v == 2 * (100 + i), "child %d sent %d", i, v);
    }
    int b = 4242;
    MPI_Bcast(&b, 1, MPI_INT, wrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    int mine = wrank, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(sum == 1000 * k + k * (k - 1) / 2, "allreduce over the intercomm gave %d", sum);
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, 0, &merged);
    int mrank, msize, total = 0;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == wsize + k && mrank == wrank, "merged rank %d of %d", mrank, msize);
    MPI_Allreduce(&mrank, &total, 1, MPI_INT, MPI_SUM, merged);
    CHECK(total == msize * (msize - 1) / 2, "allreduce over the merged comm gave %d", total);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    CHECK(inter == MPI_COMM_NULL, "disconnect did not set MPI_COMM_NULL");
}

static void child_multi(MPI_Comm parent, int argc, char **argv)
{
    int *appnum, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    CHECK(flag, "MPI_APPNUM is not set");
    CHECK(wsize == 3, "the children's world has %d processes, expected 3", wsize);
    char cwd[256];
    if (wrank == 0)
        CHECK(*appnum == 0 && argc == 1 && getcwd(cwd, sizeof cwd) && !strcmp(cwd, "/tmp"),
              "child 0: appnum %d, %d args, cwd %s (wdir /tmp)", *appnum, argc, getcwd(cwd, sizeof cwd) ? cwd : "?");
    else
        CHECK(*appnum == 1 && argc == 4 && !strcmp(argv[1], "child-multi") && !strcmp(argv[2], "") &&
                  !strcmp(argv[3], "x y"), "child %d: appnum %d, %d args", wrank, *appnum, argc);
    int v = *appnum;
    MPI_Send(&v, 1, MPI_INT, 0, 1, parent);
    MPI_Comm_disconnect(&parent);
}

static void parent_multi(void)
{
    char *cmds[2] = { self_path, self_path };
    char *args1[] = { "child-multi", "", "x y", NULL };
    char **argvs[2] = { MPI_ARGV_NULL, args1 };
    int maxprocs[2] = { 1, 2 };
    MPI_Info infos[2];
    MPI_Info_create(&infos[0]);
    MPI_Info_set(infos[0], "wdir", "/tmp");
    MPI_Info_set(infos[0], "host", "localhost");
    infos[1] = MPI_INFO_NULL;
    MPI_Comm inter;
    int errcodes[3];
    int rc = MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &inter, errcodes);
    CHECK(rc == MPI_SUCCESS, "spawn_multiple returned %d", rc);
    MPI_Info_free(&infos[0]);
    if (wrank == 0) {
        int got[3];
        for (int i = 0; i < 3; i++)
            MPI_Recv(&got[i], 1, MPI_INT, i, 1, inter, MPI_STATUS_IGNORE);
        CHECK(got[0] == 0 && got[1] == 1 && got[2] == 1, "appnums %d %d %d", got[0], got[1], got[2]);
    }
    MPI_Comm_disconnect(&inter);
}

static void expect_spawn_error(const char *what, int rc, const char *needle)
{
    int cls;
    MPI_Error_class(rc, &cls);
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    CHECK(cls != MPI_SUCCESS, "%s succeeded", what);
    CHECK(!needle || strstr(msg, needle), "%s: message '%s' does not name '%s'", what, msg, needle);
}

static void parent_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm inter = MPI_COMM_WORLD;
    int errcodes[4] = { -1, -1, -1, -1 }, cls;
    int rc = MPI_Comm_spawn("/nonexistent/corempi-prog", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            errcodes);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "missing binary: class %d", cls);
    CHECK(inter == MPI_COMM_NULL, "missing binary: intercomm not MPI_COMM_NULL");
    CHECK(errcodes[0] == MPI_ERR_SPAWN && errcodes[1] == MPI_ERR_SPAWN, "missing binary: errcodes %d %d",
          errcodes[0], errcodes[1]);
    expect_spawn_error("missing binary", rc, "/nonexistent/corempi-prog");

    rc = MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 1000, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                        MPI_ERRCODES_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "too many: class %d", cls);
    expect_spawn_error("too many", rc, "universe-size");

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", "another-node.example");
    rc = MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 1, info, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "other host: class %d", cls);
    expect_spawn_error("other host", rc, "another-node.example");
    MPI_Info_set(info, "host", "localhost");
    MPI_Info_set(info, "wdir", "/nonexistent-dir");
    rc = MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 1, info, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "bad wdir: class %d", cls);
    expect_spawn_error("bad wdir", rc, "/nonexistent-dir");
    MPI_Info_free(&info);

    rc = MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "maxprocs 0: class %d", cls);
    rc = MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 1, MPI_INFO_NULL, wsize, MPI_COMM_WORLD, &inter,
                        MPI_ERRCODES_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ROOT, "bad root: class %d", cls);

    /* Nothing was left locked: a good spawn still works. */
    char *args[] = { "child", NULL };
    rc = MPI_Comm_spawn(self_path, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    CHECK(rc == MPI_SUCCESS, "the good spawn after the bad ones returned %d", rc);
    int k = 1;
    if (wrank == 0) {
        int v = 100;
        MPI_Send(&v, 1, MPI_INT, 0, 7, inter);
    }
    if (wrank == 0) {
        int v;
        MPI_Recv(&v, 1, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
        CHECK(v == 200, "child sent %d", v);
    }
    int b = 4242, mine = wrank, sum;
    MPI_Bcast(&b, 1, MPI_INT, wrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, 0, &merged);
    int total, mrank;
    MPI_Comm_rank(merged, &mrank);
    MPI_Allreduce(&mrank, &total, 1, MPI_INT, MPI_SUM, merged);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    (void)k;
}

/* Spawn command (a name without '/') with info key=value; the child says
 * which program it is and disconnects. */
static int spawn_named(const char *command, const char *key, const char *value, const char *want)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    char *args[] = { "child-lookup", NULL };
    MPI_Comm inter = MPI_COMM_NULL;
    int rc = MPI_Comm_spawn(command, args, 1, info, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return rc;
    char got[4096] = "";
    if (wrank == 0)
        MPI_Recv(got, sizeof got, MPI_CHAR, 0, 0, inter, MPI_STATUS_IGNORE);
    CHECK(wrank != 0 || strstr(got, want), "spawned '%s' ran %s, expected %s", command, got, want);
    MPI_Comm_disconnect(&inter);
    return MPI_SUCCESS;
}

/* Processes running this program now (their /proc/PID/exe is self_path),
 * zombies not counted. */
static int live_copies(void)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], exe[4096], stat[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/exe", e->d_name);
        ssize_t len = readlink(path, exe, sizeof exe - 1);
        if (len <= 0)
            continue;
        exe[len] = '\0';
        if (strcmp(exe, self_path))
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t got = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[got] = '\0';
        const char *paren = strrchr(stat, ')');
        n += paren && paren[1] == ' ' && paren[2] != 'Z';
    }
    if (d)
        closedir(d);
    return n;
}

/* Progress sweeps for 20 ms: each looks at reuse_epoch (p2p/reuse.c). */
static void sweep_a_while(void)
{
    double until = MPI_Wtime() + 0.02;
    int flag;
    while (MPI_Wtime() < until)
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

static void parent_rounds(int rounds, int k, int busy)
{
    int *u, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &u, &flag);
    CHECK(flag && *u == wsize + k, "run with --universe-size %d (world + K), not %d", wsize + k, flag ? *u : -1);
    char *args[] = { busy ? "child-round-all" : "child-round", NULL };
    for (int i = 0; i < rounds; i++) {
        MPI_Comm inter;
        if (busy) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (wrank != 0)
                sweep_a_while();    /* while the root's spawn is served */
        }
        int rc = MPI_Comm_spawn(self_path, args, k, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        CHECK(rc == MPI_SUCCESS, "round %d: spawn of %d returned %d", i, k, rc);
        if (wrank == 0 || busy)
            for (int c = 0; c < k; c++) {
                int v = i * 10 + c + 1000 * wrank, back;
                MPI_Send(&v, 1, MPI_INT, c, 1, inter);
                MPI_Recv(&back, 1, MPI_INT, c, 2, inter, MPI_STATUS_IGNORE);
                CHECK(back == v + 1, "round %d: child %d answered %d to %d", i, c, back, v);
            }
        MPI_Comm_disconnect(&inter);
        if (wrank == 0 && i % 50 == 49) {
            /* A child that has finalized gives its slot back while its exit
             * (a sanitizer's leak check: seconds) may still run: give the
             * last round's children up to 10 s to be gone. */
            int n = live_copies();
            for (int t = 0; t < 1000 && n > wsize + k; t++) {
                usleep(10000);
                n = live_copies();
            }
            CHECK(n >= 1 && n <= wsize + k, "round %d: %d processes of the program alive (world %d, K %d)", i,
                  n, wsize, k);
            printf("round %d: %d processes alive\n", i + 1, n);
            fflush(stdout);
        }
    }
}

static void parent_lookup(const char *dir)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char sub[4096], w[4096], want[4200];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(w, sizeof w, "%s/w", dir);
    snprintf(want, sizeof want, "%s/cm-spawn-here", dir);
    int rc = spawn_named("cm-spawn-here", NULL, NULL, want);       /* the current directory */
    CHECK(rc == MPI_SUCCESS, "a program in the current directory without ./ was not found (%d)", rc);
    snprintf(want, sizeof want, "%s/cm-spawn-path", sub);
    rc = spawn_named("cm-spawn-path", "path", sub, want);          /* info key path */
    CHECK(rc == MPI_SUCCESS, "a program in the info key path was not found (%d)", rc);
    snprintf(want, sizeof want, "%s/cm-spawn-wdir", w);
    rc = spawn_named("cm-spawn-wdir", "wdir", w, want);            /* info key wdir */
    CHECK(rc == MPI_SUCCESS, "a program in wdir was not found (%d)", rc);
    rc = spawn_named("cm-spawn-nowhere", "path", sub, "");
    expect_spawn_error("a program found nowhere", rc, "cannot run 'cm-spawn-nowhere': program not found");
    expect_spawn_error("a program found nowhere", rc, sub);
    /* A program of another MPI (spawn_lookup.sh links one against a dummy
     * libmpi.so.40 when it has a compiler): refused, its children would never join. */
    snprintf(want, sizeof want, "%s/cm-spawn-foreign", dir);
    if (access(want, X_OK) == 0) {
        rc = spawn_named("cm-spawn-foreign", NULL, NULL, "");
        expect_spawn_error("a program of another MPI", rc, "is linked with Open MPI's libmpi.so.40, not corempi");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    CHECK(n > 0, "readlink /proc/self/exe");
    self_path[n] = '\0';
    const char *mode = argc > 1 ? argv[1] : "basic";
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);

    if (parent != MPI_COMM_NULL) {
        if (!strcmp(mode, "child-crash")) {
            raise(SIGSEGV);
        } else if (!strcmp(mode, "child-round")) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
            v++;
            MPI_Send(&v, 1, MPI_INT, 0, 2, parent);
            MPI_Comm_disconnect(&parent);
        } else if (!strcmp(mode, "child-round-all")) {
            int parents;
            MPI_Comm_remote_size(parent, &parents);
            for (int p = 0; p < parents; p++) {
                int v;
                MPI_Recv(&v, 1, MPI_INT, p, 1, parent, MPI_STATUS_IGNORE);
                v++;
                MPI_Send(&v, 1, MPI_INT, p, 2, parent);
            }
            MPI_Comm_disconnect(&parent);
        } else if (!strcmp(mode, "child-lookup")) {
            if (wrank == 0)
                MPI_Send(self_path, (int)strlen(self_path) + 1, MPI_CHAR, 0, 0, parent);
            MPI_Comm_disconnect(&parent);
        } else if (argc == 1 || !strcmp(mode, "child-multi")) {
            child_multi(parent, argc, argv);
        } else {
            child_basic(parent);
        }
        MPI_Finalize();
        return 0;
    }
    CHECK(strncmp(mode, "child", 5), "mode %s without a parent", mode);
    if (!strcmp(mode, "basic")) {
        parent_basic(argc > 2 ? atoi(argv[2]) : 1, argc > 3 ? atoi(argv[3]) : 0);
    } else if (!strcmp(mode, "multi")) {
        parent_multi();
    } else if (!strcmp(mode, "errors")) {
        parent_errors();
    } else if (!strcmp(mode, "crash")) {
        char *args[] = { "child-crash", NULL };
        MPI_Comm inter;
        MPI_Comm_spawn(self_path, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        int v;
        MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE); /* never comes: the child crashed */
    } else if (!strcmp(mode, "universe")) {
        int *u, flag;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &u, &flag);
        long cores = sysconf(_SC_NPROCESSORS_ONLN), want = cores > wsize ? cores : wsize;
        if (want < 64)
            want = 64;   /* generous by default: room to spawn (mpirun's CM_UNIVERSE_DEFAULT) */
        CHECK(flag && *u == want, "default MPI_UNIVERSE_SIZE %d (world %d, %ld cores online; expected %ld)",
              flag ? *u : -1, wsize, cores, want);
    } else if (!strcmp(mode, "rounds")) {
        parent_rounds(argc > 2 ? atoi(argv[2]) : 200, argc > 3 ? atoi(argv[3]) : 1, 0);
    } else if (!strcmp(mode, "rounds_busy")) {
        parent_rounds(argc > 2 ? atoi(argv[2]) : 100, argc > 3 ? atoi(argv[3]) : 2, 1);
    } else if (!strcmp(mode, "lookup")) {
        CHECK(argc > 2, "lookup needs DIR");
        parent_lookup(argv[2]);
    } else if (!strcmp(mode, "singleton")) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm inter;
        int rc = MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                                MPI_ERRCODES_IGNORE);
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_SPAWN, "singleton spawn: class %d", cls);
        expect_spawn_error("singleton spawn", rc, "needs mpirun");
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    MPI_Finalize();
    if (wrank == 0)
        printf("spawn %s: ok\n", mode);
    return 0;
}
