/* SPDX-License-Identifier: Apache-2.0 */
/* Private to the coordinator runtime's files (runtime.c, loader.c). */
#ifndef GR_COORDINATOR_RUNTIME_INT_H
#define GR_COORDINATOR_RUNTIME_INT_H

#include "coordinator/runtime.h"

/* Starts the loader (loader.c) if some partition is LOADING and it is not running. */
void gr_coordinator_loader_start(gr_coordinator_runtime_t *rt);
/* Stops the loader; the next start picks a partition afresh. */
void gr_coordinator_loader_stop(gr_coordinator_runtime_t *rt);

#endif
