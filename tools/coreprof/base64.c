/* base64.c -- RFC 4648 base64 of a file, streamed. */
#include "base64.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int cp_base64_file(FILE *out, const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in) return -1;
    unsigned char b[3 * 1024];
    size_t n;
    while ((n = fread(b, 1, sizeof b, in)) > 0) {
        size_t i = 0;
        for (; i + 3 <= n; i += 3) {
            unsigned v = (unsigned)b[i] << 16 | (unsigned)b[i + 1] << 8 | b[i + 2];
            fputc(alphabet[v >> 18], out); fputc(alphabet[(v >> 12) & 63], out);
            fputc(alphabet[(v >> 6) & 63], out); fputc(alphabet[v & 63], out);
        }
        if (i < n) {               /* only at end of file: the buffer is a multiple of 3 otherwise */
            unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0);
            fputc(alphabet[v >> 18], out); fputc(alphabet[(v >> 12) & 63], out);
            fputc(i + 1 < n ? alphabet[(v >> 6) & 63] : '=', out); fputc('=', out);
        }
    }
    int bad = ferror(in);
    fclose(in);
    return bad ? -1 : 0;
}
