/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Returning freed heap to the OS (heap_trim.c): the log manager's
 * checkpoint tick calls it.
 *
 * Runs on: loop thread.
 */
#ifndef GR_LOG_MANAGER_HEAP_TRIM_H
#define GR_LOG_MANAGER_HEAP_TRIM_H

#include <stddef.h>

typedef struct gr_broker gr_broker_t;

/* The heap's free pages back to the OS (glibc's malloc_trim) when it holds
 * at least min_free_bytes free; nothing otherwise, or off glibc. */
void gr_heap_trim(gr_broker_t *b, size_t min_free_bytes);

#endif
