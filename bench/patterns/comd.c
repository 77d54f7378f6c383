/* The communication skeleton of CoMD's time step (ECP-copa/CoMD), whose own
 * timer read 1.20x Open MPI at 2 ranks in issue 38.
 *
 * The ranks form a periodic 3-D grid (MPI_Dims_create; at 2 ranks 2x1x1, so
 * the y and z exchanges are MPI_Sendrecv with the rank itself, as CoMD
 * does).  One step: the force computation (work), then redistributeAtoms'
 * halo exchange of atoms: for each axis x, y, z, an MPI_Sendrecv towards
 * the minus neighbour (receiving from the plus one), then one towards the
 * plus neighbour, of MPI_BYTE into a buffer larger than the message, and
 * MPI_Get_count for the atoms that came.  Sizes are those of CoMD's default
 * 20^3 cell LJ copper problem split in two: about 2300, 1500 and 1700
 * 56-byte atoms per face of x, y and z, varying by a few percent from step
 * to step.  Every PRINT_RATE steps, CoMD's energy sums: MPI_Allreduce of 2
 * doubles and of 1 int (the atom count).  Each message carries stamps of
 * (step, sender, axis, way) in its first and last word, checked.
 * Prints the step, then the halo exchange alone (no force computation: what
 * the library adds to a step):
 *   comd ranks=N part=step us_per_step=X
 *   comd ranks=N part=halo us_per_step=X */
#include "pattern_bench.h"

enum { ATOM_BYTES = 56, FORCE_UNITS = 3000, PRINT_RATE = 10 };
static const int face_atoms[3] = {2300, 1500, 1700};

struct comd {
    int nb[3][2]; /* [axis][0: minus, 1: plus] */
    char *sbuf, *rbuf;
    int cap;
    int force_units; /* 0: the halo exchange alone */
};

static void step(void *ctx, long round)
{
    struct comd *c = ctx;
    pat_work(c->force_units);
    for (int axis = 0; axis < 3; axis++)
        for (int way = 0; way < 2; way++) {
            int to = c->nb[axis][way], from = c->nb[axis][!way];
            int atoms = face_atoms[axis] + (int)(pat_mix((uint64_t)round * 8 + axis * 2 + way) % 64);
            int bytes = atoms * ATOM_BYTES, s = pat_stamp((uint64_t)round, (uint64_t)pat_rank, (uint64_t)axis, (uint64_t)way);
            memcpy(c->sbuf, &s, sizeof s);
            memcpy(c->sbuf + bytes - sizeof s, &s, sizeof s);
            MPI_Status st;
            MPI_Sendrecv(c->sbuf, bytes, MPI_BYTE, to, axis * 2 + way, c->rbuf, c->cap, MPI_BYTE, from, axis * 2 + way,
                         MPI_COMM_WORLD, &st);
            int got, want = pat_stamp((uint64_t)round, (uint64_t)from, (uint64_t)axis, (uint64_t)way), first, last;
            MPI_Get_count(&st, MPI_BYTE, &got);
            int from_atoms = face_atoms[axis] + (int)(pat_mix((uint64_t)round * 8 + axis * 2 + way) % 64);
            pat_expect(got, from_atoms * ATOM_BYTES, "comd: bytes of a halo message");
            memcpy(&first, c->rbuf, sizeof first);
            memcpy(&last, c->rbuf + got - sizeof last, sizeof last);
            pat_expect(first, want, "comd: first word of a halo message");
            pat_expect(last, want, "comd: last word of a halo message");
            pat_work(atoms / 64); /* unpacking into link cells */
        }
    if (round % PRINT_RATE == 0) {
        double e[2] = {1.0, 2.0}, sum[2];
        int n = 16000, total;
        MPI_Allreduce(e, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&n, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        pat_expect(total, n * pat_size, "comd: atom count");
    }
}

int main(int argc, char **argv)
{
    struct pat_opts o = pat_init(&argc, &argv, "comd");
    int dims[3];
    struct comd c;
    pat_grid3(1, dims, c.nb);
    c.cap = (face_atoms[0] + 64) * ATOM_BYTES * 2;
    c.sbuf = calloc((size_t)c.cap, 1);
    c.rbuf = calloc((size_t)c.cap, 1);
    if (!c.sbuf || !c.rbuf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (pat_rank == 0)
        printf("# comd grid %dx%dx%d, faces of %d/%d/%d atoms of %d B\n", dims[0], dims[1], dims[2], face_atoms[0],
               face_atoms[1], face_atoms[2], ATOM_BYTES);
    static const char *parts[] = {"step", "halo"};
    for (int i = 0; i < 2; i++) {
        if (!pat_wanted(&o, parts[i]))
            continue;
        c.force_units = i == 0 ? FORCE_UNITS : 0;
        double t = pat_measure(step, &c, &o);
        if (pat_rank == 0)
            printf("comd ranks=%d part=%s us_per_step=%.1f\n", pat_size, parts[i], t * 1e6);
    }
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}
