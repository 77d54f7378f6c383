/* json_out.c -- JSON string escaping (paths and function names come from the trace). */
#include "json_out.h"

/* length of a valid UTF-8 sequence at p, 0 if invalid */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] >= 0xF5 ? 0 : p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    return n;
}

size_t cp_json_string(FILE *f, const char *s)
{
    size_t w = 0;
    fputc('"', f); w++;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if (c == '"' || c == '\\') { fputc('\\', f); fputc((int)c, f); w += 2; }
        else if (c < 0x20) { w += (size_t)fprintf(f, "\\u%04x", c); }
        else if (c < 0x80) { fputc((int)c, f); w++; }
        else {
            int n = utf8_len(p);
            if (n == 0) { fputs("\\ufffd", f); w += 6; continue; }
            fwrite(p, 1, (size_t)n, f);
            w += (size_t)n;
            p += n - 1;
        }
    }
    fputc('"', f); w++;
    return w;
}
