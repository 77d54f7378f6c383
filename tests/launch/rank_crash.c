/* rank_crash.c -- "rank_crash VICTIM HOW": every rank prints "pid P" and
 * sleeps (up to 20 s); rank VICTIM instead fails as HOW says:
 *   segv      raise SIGSEGV
 *   exit:N    exit with status N
 *   kill      raise SIGKILL
 *   oom:FILE  write "oom_kill 1" to FILE (mpirun's CM_TEST_VMSTAT), raise SIGKILL
 * so tests can watch mpirun end the job and leave nothing behind.  With
 * CM_TEST_IGNORE_TERM=1 the ranks ignore SIGTERM: only SIGKILL ends them. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int rank = atoi(getenv("COREMPI_RANK") ? getenv("COREMPI_RANK") : "0");
    int victim = atoi(argv[1]);
    if (getenv("CM_TEST_IGNORE_TERM"))
        signal(SIGTERM, SIG_IGN);
    printf("pid %d\n", (int)getpid());
    fflush(stdout);
    if (rank == victim) {
        usleep(200 * 1000); /* let the others start sleeping first */
        if (strcmp(argv[2], "segv") == 0)
            raise(SIGSEGV);
        if (strncmp(argv[2], "oom:", 4) == 0) {
            FILE *f = fopen(argv[2] + 4, "w");
            if (f) {
                fputs("nr_free_pages 1\noom_kill 1\n", f);
                fclose(f);
            }
        }
        if (strcmp(argv[2], "kill") == 0 || strncmp(argv[2], "oom:", 4) == 0)
            raise(SIGKILL);
        if (strncmp(argv[2], "exit:", 5) == 0)
            exit(atoi(argv[2] + 5));
    }
    sleep(20);
    printf("survived\n"); /* mpirun should have ended us long before */
    return 0;
}
