/* SPDX-License-Identifier: Apache-2.0 */
/* What logging.c and log_levels.c share, private to src/core/. */
#ifndef GR_CORE_LOGGING_INT_H
#define GR_CORE_LOGGING_INT_H

#include "core/logging.h"

/* Every logger follows root, root at level; builds the name hash. */
void gr_log_levels_init(gr_logger_t *log, gr_log_level_t root);

#endif
