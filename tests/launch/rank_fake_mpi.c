/* rank_fake_mpi.c -- plays the library's part in the segment (no MPI here),
 * so launcher diagnostics are tested on their own:
 *   rank_fake_mpi deadlock         every rank: RUNNING, blocked in MPI_Recv
 *                                  from rank+1, tag 5, then sleeps
 *   rank_fake_mpi abort R C        rank R: MPI_Abort(code C); others block
 *   rank_fake_mpi noexit R         rank R: RUNNING, last call MPI_Send, exit 0
 *   rank_fake_mpi segv-in R        rank R: blocked in MPI_Send, then SIGSEGV
 *   rank_fake_mpi finalize-exit N  every rank: FINALIZED, exit N (rank 0 only)
 *   rank_fake_mpi slow-progress S  every rank: blocked in MPI_Recv but moving
 *                                  (progress += 1 every 20 ms) for S seconds,
 *                                  then FINALIZED, exit 0
 * Other ranks sleep (up to 20 s) unless said otherwise. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cm_call_ids.h"
#include "shm/segment.h"

static struct cm_rank_ctl *ctl;
static struct cm_seg_header *hdr;

static void block_in(unsigned call, int peer, int tag)
{
    atomic_store(&ctl->state, CM_RANK_RUNNING);
    ctl->last_call = call;
    ctl->blocked_peer = peer;
    ctl->blocked_tag = tag;
    ctl->blocked_ctx = 0;
    ctl->blocked_call = call;
}

int main(int argc, char **argv)
{
    int rank = atoi(getenv(CM_ENV_RANK)), size = atoi(getenv(CM_ENV_SIZE));
    int fd = atoi(getenv(CM_ENV_SHM_FD));
    struct stat st;
    fstat(fd, &st);
    void *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED || argc < 2)
        return 2;
    hdr = base;
    ctl = cm_seg_ctl(base, (uint32_t)rank);
    const char *mode = argv[1];
    int who = argc > 2 ? atoi(argv[2]) : 0;
    printf("pid %d\n", (int)getpid());
    fflush(stdout);

    if (strcmp(mode, "finalize-exit") == 0) {
        atomic_store(&ctl->state, CM_RANK_FINALIZED);
        return rank == 0 ? who : 0;
    }
    if (strcmp(mode, "slow-progress") == 0) {
        block_in(CM_CALL_Recv, (rank + 1) % size, 5);
        for (int i = 0; i < who * 50; i++) {
            usleep(20 * 1000);
            atomic_fetch_add(&ctl->progress, 1);
        }
        ctl->blocked_call = 0;
        atomic_store(&ctl->state, CM_RANK_FINALIZED);
        return 0;
    }
    if (strcmp(mode, "deadlock") == 0 || rank != who) {
        block_in(CM_CALL_Recv, (rank + 1) % size, 5);
        sleep(20);
        printf("survived\n"); /* mpirun should have ended us long before */
        return 0;
    }
    usleep(200 * 1000);
    if (strcmp(mode, "abort") == 0) {
        int code = argc > 3 ? atoi(argv[3]) : 1;
        uint32_t zero = 0;
        ctl->last_call = CM_CALL_Abort;
        if (atomic_compare_exchange_strong(&hdr->abort_flag, &zero, 1u)) {
            hdr->abort_code = code;
            hdr->abort_rank = rank;
        }
        ctl->exit_code = code;
        atomic_store(&ctl->state, CM_RANK_ABORTED);
        _exit(code & 0xff ? code & 0xff : 1);
    }
    if (strcmp(mode, "noexit") == 0) {
        atomic_store(&ctl->state, CM_RANK_RUNNING);
        ctl->last_call = CM_CALL_Send;
        return 0;
    }
    if (strcmp(mode, "segv-in") == 0) {
        block_in(CM_CALL_Send, 0, 7);
        raise(SIGSEGV);
    }
    return 2;
}
