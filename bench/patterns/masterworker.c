/* Master-worker with MPI_ANY_SOURCE: rank 0 hands out small tasks and takes
 * results back from whichever worker finishes first, the shape of task farms
 * and dynamic load balancers.
 *
 * One round is a batch of 8 tasks per worker: rank 0 sends each worker a
 * task, then loops { MPI_Recv(ANY_SOURCE) a result; send that worker the next
 * task } until every task of the batch is back, and ends the batch with a stop
 * message to each worker.  A task is ~1000 dependent floating-point
 * operations.  Prints  masterworker ranks=N us_per_task=X  (batch time over
 * tasks).  Checks: a result must come from the worker its task went to, once,
 * and carry the sum of the task's three stamps; each worker's count of tasks
 * must match the master's at the stop message. */
#include "pattern_bench.h"

enum { TASKS_PER_WORKER = 8, TASK_UNITS = 16, TAG_TASK = 1, TAG_STOP = 2, TAG_RESULT = 3 };

struct farm {
    int tasks;
    int *owner;   /* rank 0: the worker task i went to, -1 once it is back */
    int *per_worker; /* rank 0: results back from each worker in this batch */
};

static void give(struct farm *f, long round, int task, int worker)
{
    int msg[4] = {task};
    for (int j = 1; j < 4; j++)
        msg[j] = pat_stamp((uint64_t)round, (uint64_t)task, (uint64_t)j, 7);
    f->owner[task] = worker;
    MPI_Send(msg, 4, MPI_INT, worker, TAG_TASK, MPI_COMM_WORLD);
}

static void master(struct farm *f, long round)
{
    int next = 0, back = 0, result[2];
    MPI_Status st;
    for (int w = 1; w < pat_size; w++) {
        f->per_worker[w] = 0;
        give(f, round, next++, w);
    }
    while (back < f->tasks) {
        MPI_Recv(result, 2, MPI_INT, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
        int w = st.MPI_SOURCE, task = result[0];
        if (task < 0 || task >= next)
            pat_expect(task, next - 1, "masterworker: task number of a result");
        pat_expect(f->owner[task], w, "masterworker: worker that returned a task");
        unsigned sum = 0;
        for (int j = 1; j < 4; j++)
            sum += (unsigned)pat_stamp((uint64_t)round, (uint64_t)task, (uint64_t)j, 7);
        pat_expect(result[1], (int)sum, "masterworker: result of a task");
        f->owner[task] = -1;
        f->per_worker[w]++;
        back++;
        if (next < f->tasks)
            give(f, round, next++, w);
    }
    for (int w = 1; w < pat_size; w++)
        MPI_Send(&f->per_worker[w], 1, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
}

static void worker(void)
{
    int msg[4], done = 0;
    MPI_Status st;
    for (;;) {
        MPI_Recv(msg, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP) {
            pat_expect(msg[0], done, "masterworker: tasks the master counted for this worker");
            return;
        }
        pat_work(TASK_UNITS);
        int result[2] = {msg[0], (int)((unsigned)msg[1] + (unsigned)msg[2] + (unsigned)msg[3])};
        MPI_Send(result, 2, MPI_INT, 0, TAG_RESULT, MPI_COMM_WORLD);
        done++;
    }
}

static void batch(void *ctx, long round)
{
    if (pat_rank == 0)
        master(ctx, round);
    else
        worker();
}

int main(int argc, char **argv)
{
    struct pat_opts o = pat_init(&argc, &argv, "masterworker");
    if (pat_size < 2) {
        fprintf(stderr, "masterworker: needs at least 2 ranks (a master and a worker), got %d\n", pat_size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    struct farm f = {TASKS_PER_WORKER * (pat_size - 1), NULL, NULL};
    f.owner = calloc((size_t)f.tasks, sizeof(int));
    f.per_worker = calloc((size_t)pat_size, sizeof(int));
    if (!f.owner || !f.per_worker)
        MPI_Abort(MPI_COMM_WORLD, 2);
    double t = pat_measure(batch, &f, &o);
    if (pat_rank == 0) {
        printf("masterworker ranks=%d us_per_task=%.3f\n", pat_size, t / f.tasks * 1e6);
        fflush(stdout);
    }
    free(f.owner);
    free(f.per_worker);
    MPI_Finalize();
    return 0;
}
