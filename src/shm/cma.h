/*
 * cma.h -- single copy between processes (process_vm_readv/writev): the
 * receiver reads the sender's buffer, or the sender writes the receiver's,
 * with one copy made by the kernel.
 */
#ifndef CM_SHM_CMA_H
#define CM_SHM_CMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Copy len bytes from address addr of process pid into dst.  Returns the
 * bytes moved: len, or fewer when the kernel refused (errno says why). */
size_t cm_cma_read(pid_t pid, void *dst, uint64_t addr, size_t len);

/* Copy len bytes from src to address addr of process pid; as above. */
size_t cm_cma_write(pid_t pid, uint64_t addr, const void *src, size_t len);

#endif
