/* fmt_units.c -- human-readable byte counts and durations for tables and axes. */
#include "report.h"

void cp_fmt_bytes(char *buf, size_t len, double b)
{
    static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    int u = 0;
    while (b >= 1024.0 && u < 5) { b /= 1024.0; u++; }
    if (u == 0) snprintf(buf, len, "%.0f %s", b, unit[u]);
    else snprintf(buf, len, b < 10 ? "%.2f %s" : b < 100 ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

void cp_fmt_ns(char *buf, size_t len, double ns)
{
    if (ns < 1e3) snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6) snprintf(buf, len, "%.2f us", ns / 1e3);
    else if (ns < 1e9) snprintf(buf, len, "%.2f ms", ns / 1e6);
    else snprintf(buf, len, "%.3f s", ns / 1e9);
}

void cp_fmt_call(const cp_call_stat *c, char cell[5][32])
{
    cp_fmt_ns(cell[0], 32, (double)c->total_ns);
    cp_fmt_bytes(cell[1], 32, (double)c->bytes);
    cp_fmt_ns(cell[2], 32, (double)c->min_ns);
    cp_fmt_ns(cell[3], 32, (double)c->total_ns / (double)c->calls);
    cp_fmt_ns(cell[4], 32, (double)c->max_ns);
}
