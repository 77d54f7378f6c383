/* rank_lines.c -- rank_lines N LEN: prints N lines of LEN bytes through stdio
 * (fully buffered on a pipe or file: written in 4 KiB blocks that end
 * anywhere in a line), each "R:" followed by the letter 'a'+R%26 repeated,
 * so that a line cut by another rank's output cannot look whole.  Then a
 * last line without '\n' on stderr ("tail R"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank = atoi(getenv("COREMPI_RANK") ? getenv("COREMPI_RANK") : "0");
    long n = argc > 1 ? atol(argv[1]) : 10, len = argc > 2 ? atol(argv[2]) : 100;
    char *line = malloc((size_t)len + 2);
    if (!line)
        return 1;
    int head = snprintf(line, (size_t)len + 1, "%d:", rank);
    memset(line + head, 'a' + rank % 26, (size_t)(len - head));
    line[len] = '\n';
    for (long i = 0; i < n; i++)
        fwrite(line, 1, (size_t)len + 1, stdout);
    fprintf(stderr, "tail %d", rank);
    return 0;
}
