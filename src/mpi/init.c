/*
 * init.c -- MPI_Init / MPI_Finalize and the environment queries.
 *
 * MPI_Init maps the segment mpirun created (or makes a private one for a
 * singleton) and sets up the layers.  There is no start-up barrier: the
 * launcher wrote every rank's pid before exec and rings start zeroed, so a
 * rank may send as soon as its own MPI_Init returns.
 *
 * The process-level state has two kinds of users: the world model (MPI_Init
 * .. MPI_Finalize) and each live session (mpi/session.c).  The first user
 * sets it up, the last one tears it down (cm_process_up/_down); cm_g.initialized
 * says the state is up, world_inited/world_finalized are what MPI_Initialized
 * and MPI_Finalized report (false under sessions only, MPI-4.0 11.4.1).
 */
#include "coll/percomm.h"
#include "core/state.h"
#include "core/remote.h"
#include "core/thread_check.h"
#include "core/error.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "p2p/bsend.h"
#include "core/group.h"
#include "core/op.h"
#include "p2p/p2p.h"
#include "p2p/outq.h"
#include "shm/wait.h"
#include "mpi/process.h"
#include "mpi/dyn.h"
#include "shm/dyn.h"
#include "topo/domain.h"
#include "fe_env.h"
#include "fe_proc.h"
#include "fe_tool.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A program started without mpirun makes its own one-rank segment. */
static int make_singleton_segment(void)
{
    struct cm_seg_header h;
    size_t bytes = cm_seg_layout(1, &h);
    int fd = memfd_create("corempi-singleton", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0)
        cm_fatal("MPI_Init", "cannot create the shared segment for a singleton: %m");
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        cm_fatal("MPI_Init", "cannot map the shared segment: %m");
    cm_seg_format(base, &h);
    struct cm_rank_ctl *c = cm_seg_ctl(base, 0);
    c->pid = getpid();
    close(fd);
    cm_g.seg = base;
    cm_g.seg_bytes = bytes;
    cm_g.rank = 0;
    cm_g.slots = 1;
    cm_g.size = 1 + CM_REMOTE_MAX;
    cm_g.seg_fd_num = -1;
    cm_g.world_first = 0;
    cm_g.world_size = 1;
    cm_g.singleton = 1;
    return 0;
}

static int map_job_segment(int fd, int rank, int size, int first)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        cm_fatal("MPI_Init", "COREMPI_SHM_FD=%d is not an open file (started by another MPI's launcher?)", fd);
    void *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        cm_fatal("MPI_Init", "cannot map the shared segment: %m");
    close(fd);
    const char *why;
    if (cm_seg_check(base, (size_t)st.st_size, &why) != 0)
        cm_fatal("MPI_Init", "shared segment: %s", why);
    const struct cm_seg_header *h = base;
    if (first < 0 || size < 1 || rank < 0 || rank >= size || (uint64_t)first + (uint64_t)size > h->nranks)
        cm_fatal("MPI_Init", "rank %d / size %d from slot %d do not fit the segment (%u slots)", rank, size, first,
                 h->nranks);
    cm_g.seg = base;
    cm_g.seg_bytes = (size_t)st.st_size;
    cm_g.rank = first + rank;
    cm_g.slots = (int)h->nranks;
    cm_g.size = cm_g.slots + CM_REMOTE_MAX;
    cm_g.seg_fd_num = fd;   /* mpirun keeps it open under this number (launch/spawn.c) */
    cm_g.world_first = first;
    cm_g.world_size = size;
    struct cm_rank_ctl *c = cm_seg_ctl(base, (uint32_t)cm_g.rank);
    if (c->pid == 0)
        c->pid = getpid();
    return 0;
}

static int users;                       /* the world model + live sessions */
static int world_inited, world_finalized;

/* Set up the layers (the first user) or count one more user. */
static void setup(int required, const char *call)
{
    cm_config_load();
    cm_g.verbose = cm_config_verbose();
    cm_topo_machine_spec(cm_config_text(COREMPI_TOPOLOGY));
    int fd = cm_config_int(COREMPI_SHM_FD, -1);
    if (fd < 0)
        make_singleton_segment();
    else
        map_job_segment(fd, cm_config_int(COREMPI_RANK, -1), cm_config_int(COREMPI_SIZE, -1),
                        cm_config_int(COREMPI_SLOT_BASE, 0));
    cm_g.hdr = cm_g.seg;
    cm_g.coll_check = cm_config_flag(COREMPI_CHECK, 0);   /* after the segment: one warning per job */
    cm_g.self_ctl = cm_seg_ctl(cm_g.seg, (uint32_t)cm_g.rank);
    cm_g.oversubscribed = (cm_g.hdr->flags & CM_SEG_OVERSUBSCRIBED) != 0;
    size_t spin = cm_config_size(COREMPI_SPIN, CM_WAIT_SPIN_DEFAULT);
    size_t poll_spin = cm_config_size(COREMPI_POLL_SPIN, CM_WAIT_POLL_SPIN_DEFAULT);
    size_t spin_time = cm_config_size(COREMPI_SPIN_TIME, CM_WAIT_SPIN_TIME_DEFAULT);
    cm_wait_configure(cm_g.oversubscribed, spin > UINT_MAX ? UINT_MAX : (unsigned)spin,
                      poll_spin > UINT_MAX ? UINT_MAX : (unsigned)poll_spin,
                      spin_time > 10000000u ? 10000000u : (unsigned)spin_time);
    /* With a core per rank sleeping is rare: let sleepers carry the fence
     * (with more ranks than cores, only on the collectives' FIFO words). */
    if (fd >= 0)
        cm_wait_join_fence_free(cm_g.seg, cm_g.self_ctl, cm_config_flag(COREMPI_FENCE_FREE, 1));
    cm_g.thread_level = cm_thread_level_for(required);
    cm_mt = cm_g.thread_level == MPI_THREAD_MULTIPLE;   /* before the layers: they size their locks */
    cm_g.main_thread = pthread_self();
    cm_thread_check_set(cm_g.coll_check, call);   /* sets cm_g.call_word: the front ends record from here */
    int rc;
    if ((rc = cm_dt_init()) || (rc = cm_comm_init()) || (rc = cm_p2p_init()))
        cm_fatal("MPI_Init", "initialisation failed (error class %d)", rc);
    cm_coll_start();
    cm_g.initialized = 1;
    cm_fault_start(cm_g.rank, cm_config_text(COREMPI_FAULTS), cm_config_text(COREMPI_FAULT_REFUSE));   /* nothing unless built with COREMPI_FAULTS */
    atomic_store_explicit(&cm_g.self_ctl->state, CM_RANK_RUNNING, memory_order_release);
    if (cm_g.verbose & CM_VERBOSE_INIT)
        fprintf(stderr, "corempi: rank %d of %d: pid %d, %s, single copy %s, eager <= %zu B\n",
                cm_g.rank - cm_g.world_first, cm_g.world_size, (int)getpid(), cm_g.oversubscribed ? "oversubscribed" : "one core each",
                cm_g.cma_ok ? "on" : "off", cm_g.eager_max);
}

int cm_process_up(int required, const char *call)
{
    if (cm_g.finalized == CM_BETWEEN_SESSIONS) {
        cm_g.finalized = 0;
        users = 1;
        atomic_store_explicit(&cm_g.self_ctl->state, CM_RANK_RUNNING, memory_order_release);
        return MPI_SUCCESS;
    }
    if (cm_g.finalized)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_OTHER, call, "MPI cannot be started again after MPI_Finalize");
    if (users++ == 0)
        setup(required, call);
    return MPI_SUCCESS;
}

static int outq_empty(void *unused)
{
    (void)unused;
    return !cm_outq_active();
}

void cm_process_down(int call_id)
{
    if (--users > 0)
        return;
    /* Control messages (FIN/ACK/CTS) and buffered sends still queued would
     * leave peers waiting: deliver them before leaving. */
    cm_bsend_flush();
    cm_progress_until(outq_empty, NULL, -1, call_id, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    if (!world_inited) {
        /* Sessions only, and the last one has ended: the layers stay up, idle,
         * for a later MPI_Session_init or MPI_Init (MPI-4.1 11.3.1 lets a
         * session start after every earlier one has ended).  Tearing down
         * would forget the per-peer message state that the other ranks, still
         * running, keep: a restart could not rejoin it.  Meanwhile the rank
         * counts as finalized: other MPI calls are errors, and the process
         * may end here. */
        cm_g.finalized = CM_BETWEEN_SESSIONS;
        atomic_store_explicit(&cm_g.self_ctl->state, CM_RANK_FINALIZED, memory_order_release);
        return;
    }
    cm_comm_finalize();
    cm_p2p_finalize();
    cm_group_finalize();
    cm_op_finalize();
    cm_dt_finalize();
    cm_g.finalized = 1;
    atomic_store_explicit(&cm_g.self_ctl->state, CM_RANK_FINALIZED, memory_order_release);
}

static int init_common(int required, int *provided, const char *call)
{
    if (world_inited) {
        if (world_finalized)
            cm_fatal("MPI_Init", "MPI cannot be initialised again after MPI_Finalize");
        return cm_error(MPI_COMM_WORLD, MPI_ERR_OTHER, "MPI_Init", "MPI is already initialised");
    }
    int rc = cm_process_up(required, call);
    if (rc)
        return rc;
    world_inited = 1;
    /* A spawned process meets its parents now (mpi/dyn_parent.c). */
    if ((rc = cm_dyn_init_parent()) != MPI_SUCCESS)
        return rc;
    if (provided)
        *provided = cm_g.thread_level;
    return MPI_SUCCESS;
}

int cm_Init(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    return init_common(MPI_THREAD_SINGLE, NULL, "MPI_Init");
}

int cm_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc; (void)argv;
    return init_common(required, provided, "MPI_Init_thread");
}

int cm_Finalize(void)
{
    int rc = cm_check_initialized("MPI_Finalize");
    if (rc)
        return rc;
    if (!world_inited || world_finalized)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_OTHER, "MPI_Finalize",
                        world_inited ? "MPI_Finalize was already called" : "MPI_Init was not called (finalize sessions with MPI_Session_finalize)");
    /* SELF's delete callbacks come first, while MPI still works and
     * MPI_Finalized is false (MPI-4.1 11.2.4); a callback calling
     * MPI_Finalize again is an error, not a second finalisation. */
    static int finalizing;
    if (finalizing)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_OTHER, "MPI_Finalize",
                        "MPI_Finalize called from an attribute delete callback run by MPI_Finalize");
    finalizing = 1;
    cm_comm_finalize_attrs();
    /* A blocking collective's message no call received, on a communicator
     * never freed (coll/leftover.c): the line goes out whatever the handler;
     * a fatal one ends the job (non-zero), a returning one makes
     * MPI_Finalize return the error once finalization is done. */
    rc = cm_coll_leftovers_all("MPI_Finalize");
    world_finalized = 1;
    cm_process_down(CM_CALL_Finalize);
    return rc;
}

int cm_Initialized(int *flag)
{
    *flag = world_inited;
    return MPI_SUCCESS;
}

int cm_Finalized(int *flag)
{
    *flag = world_finalized;
    return MPI_SUCCESS;
}

int cm_Query_thread(int *provided)
{
    *provided = cm_g.thread_level;
    return MPI_SUCCESS;
}

int cm_Is_thread_main(int *flag)
{
    *flag = pthread_equal(pthread_self(), cm_g.main_thread);
    return MPI_SUCCESS;
}

int cm_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    if (!cm_g.hdr || cm_g.singleton)
        fprintf(stderr, "corempi: MPI_Abort called on rank %d with code %d\n",
                cm_g.rank < 0 ? 0 : cm_g.rank - cm_g.world_first, errorcode);
    cm_abort_job(errorcode, 0);
}

double cm_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double cm_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cm_Get_processor_name(char *name, int *resultlen)
{
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        strcpy(name, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = 0;
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int cm_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int cm_Get_library_version(char *version, int *resultlen)
{
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "corempi %s: MPI %d.%d for the cores of one node", COREMPI_VERSION_STRING,
                     MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
