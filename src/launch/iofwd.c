/* iofwd.c -- rank output through mpirun, written out a whole line at a time.
 *
 * Ranks writing to one shared stdout split each other's lines: stdio writes
 * a file or a pipe in BUFSIZ blocks that end anywhere in a line.  So, unless
 * both of mpirun's stdout and stderr are terminals and nothing was asked
 * (tags, files), each rank's stdout and stderr are pipes that mpirun reads;
 * it writes out only complete lines, each in one piece, optionally prefixed
 * with the rank, and a partial last line when the rank is gone.  mpirun is
 * then the only writer of its stdout, which is what makes lines whole.
 * When mpirun's stdout is a terminal, a rank's stdout is a pseudo-terminal
 * in raw mode instead of a pipe, so that stdio keeps line-buffering it and
 * --tag-output shows each line when it is printed, not at exit.
 *
 * Invariants: stream 2r is rank r's stdout, 2r+1 its stderr; a stream's fd is
 * -1 once it reached EOF (or mpirun gave up on it); buf holds at most one
 * partial line between calls (everything before its last '\n' is written).
 * A rank blocked on a full pipe is never a deadlock: mpirun reads every
 * stream that poll reports, and only blocks writing to its own stdout.
 * A stderr line that starts with CM_SEG_HOLD_MARK (a fatal error that only
 * points at another rank's) is held, without the mark, until
 * cm_iofwd_release: the watcher lets the other ranks' lines out first. */
#include "launch/launch.h"
#include "shm/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <pty.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#define CM_IO_CHUNK 65536
#define CM_IO_LINE_MAX (4u << 20) /* a longer "line" is written in pieces */

struct stream {
    int fd;          /* read end, -1 when closed */
    int wfd;         /* write end (mpirun closes it after forking) */
    int file_fd;     /* --output-filename file, -1 if none */
    char *buf;
    size_t len, cap;
};

/* A held line of stream k (without its mark), in arrival order. */
struct held {
    struct held *next;
    int k;
    size_t n;
    char text[];
};

struct cm_iofwd {
    int nstreams;
    enum cm_tag_mode tag;
    int copy;        /* to mpirun's stdout/stderr (not with :nocopy) */
    struct stream *s;
    int *polled;     /* stream index of each pollfd of the last cm_iofwd_pollfds */
    char *out;       /* assembly buffer for prefixed lines */
    size_t out_cap;
    struct held *held, **held_tail;
    unsigned char *held_rank;   /* per rank: 1 once a line of its was held */
};

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) { /* a non-blocking stdout: wait for room */
            struct pollfd pf = {fd, POLLOUT, 0};
            poll(&pf, 1, 100);
            continue;
        }
        if (w <= 0)
            return; /* a closed stdout loses output, as it would without mpirun */
        p += w;
        n -= (size_t)w;
    }
}

static int mkdir_p(char *path)
{
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            int rc = mkdir(path, 0755);
            *p = '/';
            if (rc != 0 && errno != EEXIST)
                return -1;
        }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* DIR/1/rank.N/{stdout,stderr}, as Open MPI names them (job 1: the only one). */
static int open_files(struct cm_iofwd *io, const char *dir, size_t dlen)
{
    for (int k = 0; k < io->nstreams; k++) {
        char path[4096];
        int n = snprintf(path, sizeof path, "%.*s/1/rank.%d", (int)dlen, dir, k / 2);
        if (n < 0 || (size_t)n + 8 >= sizeof path || mkdir_p(path) != 0) {
            fprintf(stderr, "mpirun: --output-filename: cannot create %s: %s\n", path, strerror(errno));
            return -1;
        }
        strcat(path, k % 2 ? "/stderr" : "/stdout");
        io->s[k].file_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (io->s[k].file_fd < 0) {
            fprintf(stderr, "mpirun: --output-filename: cannot create %s: %s\n", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* A raw pseudo-terminal (no \r\n, no echo) as a pipe that isatty() likes;
 * reading the master after the rank closed its side gives EIO (EOF). */
static int make_pty(int p[2])
{
    struct termios t;
    struct winsize ws, *size = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 ? &ws : NULL; /* columns for `ls` */
    if (openpty(&p[0], &p[1], NULL, NULL, size) != 0)
        return -1;
    if (tcgetattr(p[1], &t) == 0) {
        cfmakeraw(&t);
        tcsetattr(p[1], TCSANOW, &t);
    }
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

static int make_pipes(struct cm_iofwd *io)
{
    int tty_out = isatty(STDOUT_FILENO);
    /* 4 fds per rank in mpirun until the ranks start: use the hard limit. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    for (int k = 0; k < io->nstreams; k++) {
        int p[2];
        if ((k % 2 || !tty_out || make_pty(p) != 0) && pipe2(p, O_CLOEXEC) != 0)
            return -1;
        fcntl(p[0], F_SETFL, O_NONBLOCK);
        io->s[k].fd = p[0];
        io->s[k].wfd = p[1];
    }
    return 0;
}

struct cm_iofwd *cm_iofwd_create(const struct cm_launch_opts *o, int nranks, int *status)
{
    *status = 0;
    int asked = o->tag != CM_TAG_NONE || o->output_dir;
    if (!asked && isatty(STDOUT_FILENO) && isatty(STDERR_FILENO))
        return NULL; /* a terminal writes each line-buffered line whole: no need */
    struct cm_iofwd *io = calloc(1, sizeof *io);
    if (!io || !(io->s = calloc((size_t)nranks * 2, sizeof *io->s)) ||
        !(io->polled = calloc((size_t)nranks * 2, sizeof *io->polled)) ||
        !(io->held_rank = calloc((size_t)nranks, 1))) {
        if (io) {
            free(io->s);
            free(io->polled);
        }
        free(io);
        fprintf(stderr, "mpirun: out of memory\n");
        *status = 1;
        return NULL;
    }
    io->nstreams = nranks * 2;
    io->held_tail = &io->held;
    io->tag = o->tag;
    io->copy = 1;
    for (int k = 0; k < io->nstreams; k++)
        io->s[k].fd = io->s[k].wfd = io->s[k].file_fd = -1;
    if (o->output_dir) {
        const char *dir = o->output_dir;
        size_t dlen = strlen(dir);
        if (dlen > 7 && !strcasecmp(dir + dlen - 7, ":nocopy")) {
            dlen -= 7;
            io->copy = 0;
        }
        if (open_files(io, dir, dlen) != 0) {
            cm_iofwd_free(io);
            *status = 2;
            return NULL;
        }
    }
    if (make_pipes(io) != 0) {
        int err = errno;
        cm_iofwd_free(io);
        if (asked) {
            fprintf(stderr, "mpirun: cannot make output pipes for %d ranks: %s (raise ulimit -n)\n", nranks,
                    strerror(err));
            *status = 1;
        }
        return NULL; /* not asked for: ranks write straight to mpirun's stdout as before */
    }
    return io;
}

void cm_iofwd_child(struct cm_iofwd *io, int rank)
{
    /* dup2 clears close-on-exec on 1 and 2; every other pipe fd is O_CLOEXEC. */
    dup2(io->s[2 * rank].wfd, STDOUT_FILENO);
    dup2(io->s[2 * rank + 1].wfd, STDERR_FILENO);
}

void cm_iofwd_parent(struct cm_iofwd *io)
{
    for (int k = 0; k < io->nstreams; k++)
        if (io->s[k].wfd >= 0) {
            close(io->s[k].wfd);
            io->s[k].wfd = -1;
        }
}

int cm_iofwd_nfds(const struct cm_iofwd *io)
{
    return io ? io->nstreams : 0;
}

int cm_iofwd_pollfds(struct cm_iofwd *io, struct pollfd *fds, int max)
{
    int n = 0;
    for (int k = 0; io && k < io->nstreams && n < max; k++)
        if (io->s[k].fd >= 0) {
            io->polled[n] = k;
            fds[n++] = (struct pollfd){io->s[k].fd, POLLIN, 0};
        }
    return n;
}

/* Make *buf hold at least need bytes, doubling. */
static void reserve(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : CM_IO_CHUNK;
    while (c < need)
        c *= 2;
    char *p = realloc(*buf, c);
    if (!p) {
        fprintf(stderr, "mpirun: out of memory\n");
        exit(1);
    }
    *buf = p;
    *cap = c;
}

/* Write p[0, n), which ends at a line's end (or is a partial line being
 * flushed), as stream k's output. */
static void write_out(struct cm_iofwd *io, int k, const char *p, size_t n, int partial)
{
    struct stream *s = &io->s[k];
    if (n == 0)
        return;
    if (s->file_fd >= 0)
        write_all(s->file_fd, p, n);
    if (io->copy) {
        int fd = k % 2 ? STDERR_FILENO : STDOUT_FILENO;
        if (io->tag == CM_TAG_NONE) {
            write_all(fd, p, n);
        } else {
            char prefix[48];
            int rank = k / 2, plen;
            if (io->tag == CM_TAG_OMPI)
                plen = snprintf(prefix, sizeof prefix, "[1,%d]<%s>:", rank, k % 2 ? "stderr" : "stdout");
            else
                plen = snprintf(prefix, sizeof prefix, "[%d] ", rank);
            size_t lines = 0;
            for (size_t i = 0; i < n; i++)
                lines += p[i] == '\n';
            reserve(&io->out, &io->out_cap, n + (lines + 1) * (size_t)plen + 1);
            size_t o = 0;
            for (size_t i = 0; i < n;) {
                const char *nl = memchr(p + i, '\n', n - i);
                size_t end = nl ? (size_t)(nl - p) + 1 : n;
                memcpy(io->out + o, prefix, (size_t)plen);
                o += (size_t)plen;
                memcpy(io->out + o, p + i, end - i);
                o += end - i;
                i = end;
            }
            if (partial && p[n - 1] != '\n')
                io->out[o++] = '\n'; /* the next tag starts a line */
            write_all(fd, io->out, o);
        }
    }
}

/* Take the lines of stream k's buffer [0, n) that start with the hold mark
 * out into the held list; the others close up.  Returns what is left. */
static size_t hold_marked(struct cm_iofwd *io, int k, size_t n)
{
    struct stream *s = &io->s[k];
    if (!(k % 2) || !memchr(s->buf, CM_SEG_HOLD_MARK, n))
        return n;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(s->buf + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - s->buf) + 1 : n;
        struct held *h = s->buf[i] == CM_SEG_HOLD_MARK ? malloc(sizeof *h + end - i) : NULL;
        if (h) {
            h->next = NULL;
            h->k = k;
            h->n = end - i - 1;
            memcpy(h->text, s->buf + i + 1, h->n);
            if (!h->n || h->text[h->n - 1] != '\n')
                h->text[h->n++] = '\n';   /* a partial line: it is written later, after others */
            *io->held_tail = h;
            io->held_tail = &h->next;
            io->held_rank[k / 2] = 1;
        } else {
            memmove(s->buf + o, s->buf + i, end - i);
            o += end - i;
        }
        i = end;
    }
    return o;
}

/* Write bytes [0, n) of stream k's buffer, which end at a line's end (or
 * are a partial line being flushed), but for held lines, then drop them
 * from the buffer. */
static void emit(struct cm_iofwd *io, int k, size_t n, int partial)
{
    struct stream *s = &io->s[k];
    if (n == 0)
        return;
    write_out(io, k, s->buf, hold_marked(io, k, n), partial);
    memmove(s->buf, s->buf + n, s->len - n);
    s->len -= n;
}

/* Read what stream k has; 1 if it may have more later, 0 at EOF. */
static int pull(struct cm_iofwd *io, int k, int until_empty)
{
    struct stream *s = &io->s[k];
    for (;;) {
        reserve(&s->buf, &s->cap, s->len + CM_IO_CHUNK);
        ssize_t got = read(s->fd, s->buf + s->len, s->cap - s->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got < 0 && errno == EAGAIN)
                return 1;
            emit(io, k, s->len, 1); /* EOF (or an error): the partial last line */
            close(s->fd);
            s->fd = -1;
            return 0;
        }
        s->len += (size_t)got;
        char *nl = memrchr(s->buf, '\n', s->len);
        if (nl)
            emit(io, k, (size_t)(nl - s->buf) + 1, 0);
        else if (s->len >= CM_IO_LINE_MAX)
            emit(io, k, s->len, 0); /* bounded memory beats one giant line */
        if (!until_empty)
            return 1; /* one chunk per poll: other ranks get their turn */
    }
}

void cm_iofwd_pump(struct cm_iofwd *io, const struct pollfd *fds, int n)
{
    if (!io)
        return;
    for (int i = 0; i < n; i++)
        if (fds[i].revents && io->s[io->polled[i]].fd == fds[i].fd)
            pull(io, io->polled[i], 0);
}

void cm_iofwd_drain_rank(struct cm_iofwd *io, int rank)
{
    if (!io)
        return;
    /* The rank is gone: all it wrote is in the pipe.  A child it left
     * behind may still hold the pipe open; then what is there is written,
     * the partial line flushed, and the rest of that child's output lost. */
    for (int k = 2 * rank; k <= 2 * rank + 1; k++)
        if (io->s[k].fd >= 0 && pull(io, k, 1)) {
            emit(io, k, io->s[k].len, 1);
            close(io->s[k].fd);
            io->s[k].fd = -1;
        }
}

int cm_iofwd_held(const struct cm_iofwd *io, int rank)
{
    return io && rank < io->nstreams / 2 && io->held_rank[rank];
}

void cm_iofwd_release(struct cm_iofwd *io)
{
    if (!io)
        return;
    while (io->held) {
        struct held *h = io->held;
        io->held = h->next;
        write_out(io, h->k, h->text, h->n, 1);
        free(h);
    }
    io->held_tail = &io->held;
}

void cm_iofwd_free(struct cm_iofwd *io)
{
    if (!io)
        return;
    cm_iofwd_release(io);
    for (int k = 0; k < io->nstreams; k++) {
        struct stream *s = &io->s[k];
        if (s->fd >= 0)
            close(s->fd);
        if (s->wfd >= 0)
            close(s->wfd);
        if (s->file_fd >= 0)
            close(s->file_fd);
        free(s->buf);
    }
    free(io->s);
    free(io->polled);
    free(io->held_rank);
    free(io->out);
    free(io);
}
