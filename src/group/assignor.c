/* SPDX-License-Identifier: Apache-2.0 */
/* The server-side assignors by name; see assignor.h. */
#include "group/assignor.h"

#include <stddef.h>

static const gr_assignor_t *const gr_assignors[] = {&gr_assignor_uniform, &gr_assignor_range};

const gr_assignor_t *gr_assignor_find(gr_str_t name)
{
    for (size_t i = 0; i < sizeof gr_assignors / sizeof gr_assignors[0]; i++) {
        if (gr_str_eq_c(name, gr_assignors[i]->name))
            return gr_assignors[i];
    }
    return NULL;
}
