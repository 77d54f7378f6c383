/* context.h -- context id bitmaps (see context.c). */
#ifndef CM_CORE_CONTEXT_H
#define CM_CORE_CONTEXT_H

#include <stdint.h>

#define CM_CTX_WORDS (CM_CTX_MAX / 64)

void cm_context_bits(uint64_t *out);                   /* this process's pairs in use */
int cm_context_take(const uint64_t *agreed, uint16_t *ctx); /* lowest pair free in agreed */
int cm_context_lowest(const uint64_t *agreed, uint16_t *ctx); /* the same, without taking it */
int cm_context_claim(uint16_t ctx);                   /* take ctx if free here: 1, else 0 */
void cm_context_free(uint16_t ctx);

#endif
