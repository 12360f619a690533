/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the migration writes to __consumer_offsets, in Kafka's records:
 *
 *   a classic member of a consumer group   its member metadata record (5)
 *                                          carries ClassicMemberMetadata:
 *                                          session timeout and the
 *                                          protocols of its last JoinGroup
 *                                          (gr_cmember_classic_encode), and
 *                                          replay restores them
 *                                          (gr_cmember_classic_replay)
 *   a downgrade                            one batch: tombstones of every
 *                                          key of the consumer group, then
 *                                          the classic group's metadata
 *                                          (gr_coordinator_store_downgrade)
 *
 * An upgrade needs no record of its own: the heartbeat that triggered it
 * writes the whole consumer group, and replay lets consumer-group records
 * replace the classic group written before them (cgroup_records.c).
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "group/cgroup_classic.h"
#include "group/cgroup_int.h"
#include "group/coordinator_int.h"

int gr_cmember_classic_encode(const gr_cmember_t *m, gr_consumer_group_member_metadata_value_t *v,
                              gr_arena_t *a)
{
    const gr_cmember_classic_t *c = m->classic;
    if (!c)
        return 0;
    gr_consumer_group_member_metadata_value_classic_member_metadata_t *cm =
        gr_arena_alloc(a, sizeof(*cm));
    if (!cm)
        return -ENOMEM;
    gr_consumer_group_member_metadata_value_classic_member_metadata_init(cm);
    cm->session_timeout_ms = c->session_timeout_ms;
    cm->supported_protocols =
        gr_arena_alloc_array(a, c->protocol_count, sizeof(*cm->supported_protocols));
    if (!cm->supported_protocols)
        return -ENOMEM;
    for (int32_t i = 0; i < c->protocol_count; i++)
        cm->supported_protocols[i] = (gr_consumer_group_member_metadata_value_classic_protocol_t){
            gr_str(c->protocols[i].name), {c->protocols[i].metadata, c->protocols[i].metadata_len}};
    cm->supported_protocols_count = c->protocol_count;
    v->classic_member_metadata = cm;
    return 0;
}

int gr_cmember_classic_replay(gr_cmember_t *m, const gr_consumer_group_member_metadata_value_t *v)
{
    const gr_consumer_group_member_metadata_value_classic_member_metadata_t *cm =
        v->classic_member_metadata;
    if (!cm) {
        gr_cmember_classic_free(m, NULL); /* no timer runs during replay */
        return 0;
    }
    gr_join_protocol_t *p = calloc((size_t)cm->supported_protocols_count + 1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    for (int32_t i = 0; i < cm->supported_protocols_count; i++)
        p[i] = (gr_join_protocol_t){cm->supported_protocols[i].name,
                                    cm->supported_protocols[i].metadata};
    int rc = gr_cmember_classic_set(m, cm->session_timeout_ms, p, cm->supported_protocols_count);
    free(p);
    return rc;
}

gr_kerr_t gr_coordinator_store_downgrade(void *opaque, gr_group_t *g, const gr_cgroup_t *old)
{
    gr_coordinator_t *co = opaque;
    /* The tombstones are written from the consumer group as it was. */
    gr_group_t was = {
        .key = g->key, .type = GR_GROUP_TYPE_CONSUMER, .consumer = (gr_cgroup_t *)old};
    gr_record_set_t s;
    gr_record_set_init(&s);
    int64_t end;
    int rc = gr_cgroup_records_tombstones(&s, &was);
    if (!rc)
        rc = gr_record_set_append(co, g->key.partition, &s, &end);
    gr_record_set_fini(&s);
    if (rc)
        return gr_coordinator_write_error(rc);
    return gr_coordinator_store_group(co, g);
}
