/*
 * coll_fuzz -- randomized differential test of every collective
 * (docs/testing-fuzz.md).
 *
 *   mpirun -n N coll_fuzz [--seed S] [--seconds T] [--cases K] [--first C] [--verbose] [--slow X]
 *
 * Runs cases C, C+1, ... of seed S (default: a fresh seed, printed) until T
 * seconds have passed (default 10; rank 0 decides, every rank learns it in
 * the allreduce that starts each case) or K cases ran.  COLL_FUZZ_SEED and
 * COLL_FUZZ_SECONDS in the environment do what the options do.  A wrong
 * value or an error return is reported with the seed, case, step, iteration,
 * call, communicator and rank; the job stops after the failing case with the
 * command that reruns it.  Prints "coll_fuzz ok" on rank 0 on success;
 * --verbose prints every case, --slow X the cases that took over X seconds.
 */
#include "coll_fuzz.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define WATCHDOG_S 15 /* below the suite's COREMPI_DEADLOCK_TIMEOUT of 20 s */

static MPI_Comm comms[FZ_NCOMMS];
static int comm_ids[FZ_NCOMMS];
static char watchdog_msg[1024];
static int verbose;

static void watchdog(int sig)
{
    (void)sig;
    ssize_t w = write(2, watchdog_msg, strlen(watchdog_msg));
    (void)w;
}

/* WORLD, a dup, splits in two and three with reversed keys, a subset made
 * with MPI_Comm_create_group (ranks r % 3 != 1, in reverse order), and a
 * dup of the split in two.  A rank outside a subset holds MPI_COMM_NULL. */
static void make_comms(int rank, int size)
{
    comms[CM_WORLD] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[CM_DUP]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &comms[CM_SPLIT2]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, size - rank, &comms[CM_SPLIT3]);
    comm_ids[CM_SPLIT2] = CM_SPLIT2 * 16 + rank % 2;
    comm_ids[CM_SPLIT3] = CM_SPLIT3 * 16 + rank % 3;
    int members[64], nm = 0;
    for (int r = size - 1; r >= 0; r--)
        if (r % 3 != 1)
            members[nm++] = r;
    comms[CM_GROUP] = MPI_COMM_NULL;
    comm_ids[CM_GROUP] = CM_GROUP * 16;
    if (rank % 3 != 1) {
        MPI_Group world, sub;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, nm, members, &sub);
        MPI_Comm_create_group(MPI_COMM_WORLD, sub, 77, &comms[CM_GROUP]);
        MPI_Group_free(&sub);
        MPI_Group_free(&world);
    }
    MPI_Comm_dup(comms[CM_SPLIT2], &comms[CM_DUPSPLIT]);
    comm_ids[CM_DUP] = CM_DUP * 16;
    comm_ids[CM_DUPSPLIT] = CM_DUPSPLIT * 16 + rank % 2;
}

static void free_comms(void)
{
    for (int i = 1; i < FZ_NCOMMS; i++)
        if (comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(&comms[i]);
}

static void describe_case(const struct fz_case *c, FILE *f)
{
    char line[1024];
    static const char *const waits[] = {"MPI_Waitall", "MPI_Wait in reverse order", "an MPI_Testall loop"};
    fprintf(f, "coll_fuzz: seed %llu case %ld: %s, %d step(s), up to %d nonblocking call(s) in flight, completed by %s\n",
            (unsigned long long)fz_ctx.seed, fz_ctx.case_no, fz_kind_name[c->kind], c->nsteps, c->window,
            waits[c->wait_mode]);
    for (int s = 0; s < c->nsteps; s++) {
        fz_describe(&c->steps[s].op, line, sizeof line);
        fprintf(f, "coll_fuzz:   step %d: %s x%d\n", s, line, c->steps[s].repeat);
    }
}

/* Complete the nonblocking calls in flight (one of three ways), then check
 * them in the order they were issued. */
static void flush(struct fz_inst **pend, int *npend, int wait_mode)
{
    int n = *npend;
    if (!n)
        return;
    MPI_Request reqs[n];
    for (int i = 0; i < n; i++)
        reqs[i] = pend[i]->req;
    int rc = MPI_SUCCESS;
    if (wait_mode == 0) {
        rc = MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    } else if (wait_mode == 1) {
        for (int i = n - 1; i >= 0 && rc == MPI_SUCCESS; i--)
            rc = MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    } else {
        int done = 0;
        while (!done && rc == MPI_SUCCESS)
            rc = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
    }
    if (rc != MPI_SUCCESS)
        fz_report(pend[0], "completing %d nonblocking call(s) returned %d", n, rc);
    /* Completion leaves a persistent request inactive, not freed. */
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if (pend[i]->persistent && (reqs[i] == MPI_REQUEST_NULL || MPI_Request_free(&reqs[i]) != MPI_SUCCESS))
            fz_report(pend[i], "the completed persistent request was freed by completion or could not be freed");
    for (int i = 0; i < n; i++) {
        fz_check(pend[i]);
        fz_release(pend[i]);
        free(pend[i]);
    }
    *npend = 0;
}

static void run_case(const struct fz_case *c)
{
    struct fz_inst *pend[FZ_MAXSTEPS * 4 + 8];
    int npend = 0;
    for (int s = 0; s < c->nsteps; s++) {
        const struct fz_op *o = &c->steps[s].op;
        MPI_Comm comm = comms[o->comm];
        fz_ctx.step = s;
        if (comm == MPI_COMM_NULL)
            continue;
        int n, me;
        MPI_Comm_size(comm, &n);
        MPI_Comm_rank(comm, &me);
        int root = o->root % n;
        if (o->root_not_lagger && n > 1 && root == o->lag_rank[0] % n)
            root = (root + 1) % n;
        int w = snprintf(watchdog_msg, sizeof watchdog_msg,
                         "coll_fuzz: world rank %d: seed %llu case %ld step %d has not finished after %d s: ",
                         fz_ctx.world_rank, (unsigned long long)fz_ctx.seed, fz_ctx.case_no, s, WATCHDOG_S);
        w += fz_describe(o, watchdog_msg + w, sizeof watchdog_msg - (size_t)w - 2);
        snprintf(watchdog_msg + w, sizeof watchdog_msg - (size_t)w, "\n");
        for (int it = 0; it < c->steps[s].repeat; it++) {
            struct fz_inst *in = calloc(1, sizeof *in);
            in->op = o;
            in->comm = comm;
            in->comm_id = comm_ids[o->comm];
            in->n = n;
            in->me = me;
            in->root = root;
            in->iter = it;
            in->key = fz_hash2(fz_hash2(fz_hash2(fz_ctx.seed, (uint64_t)fz_ctx.case_no), (uint64_t)s * 100000 + (uint64_t)it),
                               (uint64_t)in->comm_id);
            if (fz_prepare(in)) {
                fz_report(in, "out of memory preparing the call");
                fz_release(in);
                free(in);
                return;
            }
            if (it == 0 || (o->lag_every && it % o->lag_every == 0))
                for (int i = 0; i < 2; i++)
                    if (o->lag_us[i] && me == o->lag_rank[i] % n)
                        usleep((useconds_t)o->lag_us[i]);
            int rc = fz_call(in);
            if (rc != MPI_SUCCESS)
                fz_report(in, "returned error %d", rc);
            if (!o->nb || rc != MPI_SUCCESS) {
                if (rc == MPI_SUCCESS)
                    fz_check(in);
                fz_release(in);
                free(in);
                continue;
            }
            pend[npend++] = in;
            if (npend >= c->window)
                flush(pend, &npend, c->wait_mode);
        }
    }
    flush(pend, &npend, c->wait_mode);
}

static void print_rerun(int size, long upto)
{
    fprintf(stderr, "coll_fuzz: rerun:");
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "COREMPI_", 8) && strncmp(*e, "COREMPI_RANK=", 13) && strncmp(*e, "COREMPI_SIZE=", 13) &&
            strncmp(*e, "COREMPI_SHM_FD=", 15)) /* the last three are mpirun's own */
            fprintf(stderr, " %s", *e);
    fprintf(stderr, " mpirun -n %d coll_fuzz --seed %llu --cases %ld\n", size, (unsigned long long)fz_ctx.seed,
            upto);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fz_ctx.world_rank = rank;
    fz_ctx.world_size = size;
    unsigned long long seed = 0;
    int have_seed = 0;
    double seconds = 10;
    double slow = 0;
    long cases = -1, first = 0;
    if (getenv("COLL_FUZZ_SEED")) {
        seed = strtoull(getenv("COLL_FUZZ_SEED"), NULL, 10);
        have_seed = 1;
    }
    if (getenv("COLL_FUZZ_SECONDS"))
        seconds = atof(getenv("COLL_FUZZ_SECONDS"));
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--verbose")) {
            verbose = 1;
        } else if (v && !strcmp(argv[i], "--seed")) {
            seed = strtoull(v, NULL, 10);
            have_seed = 1;
            i++;
        } else if (v && !strcmp(argv[i], "--seconds")) {
            seconds = atof(v);
            i++;
        } else if (v && !strcmp(argv[i], "--cases")) {
            cases = atol(v);
            i++;
        } else if (v && !strcmp(argv[i], "--slow")) {
            slow = atof(v);
            i++;
        } else if (v && !strcmp(argv[i], "--first")) {
            first = atol(v);
            i++;
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: coll_fuzz [--seed S] [--seconds T] [--cases K] [--first C] [--verbose] [--slow X]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (!have_seed) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = fz_mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)getpid()) % 1000000000000ULL;
    }
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    fz_ctx.seed = seed;
    if (rank == 0) {
        printf("coll_fuzz: seed %llu, %d ranks, %.0f s (rerun with --seed %llu)\n", seed, size, seconds, seed);
        fflush(stdout);
    }
    fz_types_init();
    /* errors come back to the test, which reports them with the seed and case;
     * the communicators made from WORLD inherit the handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    make_comms(rank, size);
    signal(SIGALRM, watchdog);

    double start = MPI_Wtime();
    long case_no = first, ran = 0;
    int flags[2] = {0, 0};
    struct fz_case c;
    for (;; case_no++) {
        flags[0] = fz_ctx.errors > 0;
        flags[1] = rank == 0 && ((cases >= 0 && ran >= cases) || MPI_Wtime() - start >= seconds);
        MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (flags[0] || flags[1])
            break;
        fz_ctx.case_no = case_no;
        fz_gen_case(seed, case_no, &c);
        if (verbose && rank == 0)
            describe_case(&c, stdout), fflush(stdout);
        double t0 = MPI_Wtime();
        alarm(WATCHDOG_S);
        run_case(&c);
        alarm(0);
        if (slow > 0 && rank == 0 && MPI_Wtime() - t0 > slow) {
            printf("coll_fuzz: case %ld took %.2f s\n", case_no, MPI_Wtime() - t0);
            describe_case(&c, stdout);
            fflush(stdout);
        }
        ran++;
    }
    if (flags[0] && rank == 0) {
        fprintf(stderr, "coll_fuzz FAILED: seed %llu case %ld, %d ranks, after %ld case(s)\n", seed, fz_ctx.case_no,
                size, ran);
        describe_case(&c, stderr);
        print_rerun(size, fz_ctx.case_no + 1);
    }
    free_comms();
    fz_types_free();
    if (rank == 0 && !flags[0])
        printf("coll_fuzz ok: seed %llu, %ld cases (%ld..%ld), %d ranks, %.1f s\n", seed, ran, first, case_no - 1, size,
               MPI_Wtime() - start);
    MPI_Finalize();
    return flags[0] ? 1 : 0;
}
