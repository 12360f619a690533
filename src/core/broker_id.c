/* SPDX-License-Identifier: Apache-2.0 */
/* Choosing or generating the broker id: see broker_id.h. Pure functions. */
#include "core/broker_id.h"

#include <errno.h>
#include <stdio.h>

int gr_broker_id_choose(int32_t configured, int32_t meta_id, bool generation_enable, int32_t *out,
                        char *err, size_t errlen)
{
    if (configured != GR_BROKER_ID_NONE && meta_id != GR_BROKER_ID_NONE && configured != meta_id) {
        snprintf(err, errlen,
                 "broker.id %d does not match broker.id %d in meta.properties: the log dir "
                 "belongs to another broker (set broker.id=%d, or -1 to take it from "
                 "meta.properties)",
                 configured, meta_id, meta_id);
        return -EINVAL;
    }
    if (configured != GR_BROKER_ID_NONE) {
        *out = configured;
        return 0;
    }
    if (meta_id != GR_BROKER_ID_NONE) {
        *out = meta_id;
        return 0;
    }
    if (!generation_enable) {
        snprintf(err, errlen,
                 "broker.id=-1 and no meta.properties, but broker.id.generation.enable is "
                 "false: set broker.id");
        return -EINVAL;
    }
    *out = GR_BROKER_ID_NONE;
    return 0;
}

int gr_broker_id_from_sequence(int32_t version, int32_t reserved_max, int32_t *out)
{
    if (version < 0 || reserved_max < 0 || version > INT32_MAX - reserved_max ||
        version + reserved_max == 0)
        return -ERANGE;
    *out = version + reserved_max;
    return 0;
}
