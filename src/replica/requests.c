/* SPDX-License-Identifier: Apache-2.0 */
#include "replica/requests.h"

#include <errno.h>
#include <stdint.h>

#include "core/context.h"
#include "gen/leader_and_isr.h"
#include "metadata/cluster_view.h"
#include "replica/requests_int.h"
#include "gen/stop_replica.h"
#include "gen/update_metadata.h"

/*
 * A single-node broker's controller runs in-process and reaches it without
 * a socket: a controller request arriving over the network was not sent by
 * it, whatever it claims, and is refused as from an unknown controller.
 */
gr_kerr_t replica_fence(gr_replica_call_t *call, int32_t controller_id, int32_t epoch)
{
    gr_broker_t *b = call->b;
    gr_cluster_view_t *v = b->cluster;
    if ((call->from_network && !v->zk_mode) || epoch < v->controller_epoch) {
        gr_logf(&b->log, GR_LOG_WARN, "controller",
                "ignoring a request of controller %d at epoch %d (newest seen: %d)", controller_id,
                epoch, v->controller_epoch);
        return GR_KERR_STALE_CONTROLLER_EPOCH;
    }
    v->controller_epoch = epoch;
    v->controller_id = controller_id;
    return GR_KERR_NONE;
}

void *replica_alloc(gr_replica_call_t *call, int64_t count, size_t size)
{
    return gr_arena_alloc_array(call->arena, count, size);
}

void replica_finish(gr_replica_call_t *call, const void *response)
{
    call->done(call, response ? 0 : -ENOMEM, response);
}

bool gr_replica_call_handles(int16_t api_key)
{
    return api_key == GR_API_LEADER_AND_ISR || api_key == GR_API_UPDATE_METADATA ||
           api_key == GR_API_STOP_REPLICA;
}

void gr_replica_call_start(gr_replica_call_t *call)
{
    call->state = NULL;
    call->fetch = NULL;
    switch (call->api_key) {
    case GR_API_LEADER_AND_ISR:
        replica_leader_and_isr(call);
        break;
    case GR_API_UPDATE_METADATA:
        replica_update_metadata(call);
        break;
    case GR_API_STOP_REPLICA:
        replica_stop_replica(call);
        break;
    default:
        call->done(call, -EPROTONOSUPPORT, NULL);
        break;
    }
}

void gr_replica_call_cancel(gr_replica_call_t *call)
{
    if (call->api_key == GR_API_LEADER_AND_ISR)
        replica_leader_and_isr_cancel(call);
}
