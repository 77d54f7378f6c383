/* base64.h -- encoding for data: URIs in the self-contained HTML page. */
#ifndef COREPROF_BASE64_H
#define COREPROF_BASE64_H
#include <stdio.h>
/* Writes the base64 of the file at path to out; -1 if it cannot be read. */
int cp_base64_file(FILE *out, const char *path);
#endif
