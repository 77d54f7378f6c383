/* json_out.h -- the one JSON detail worth a function: string escaping. */
#ifndef COREPROF_JSON_OUT_H
#define COREPROF_JSON_OUT_H

#include <stdio.h>

/* Writes "s" with quotes, escaping what JSON requires (control characters as \u00XX,
 * invalid UTF-8 bytes replaced so the output always parses). Returns bytes written. */
size_t cp_json_string(FILE *f, const char *s);

#endif
