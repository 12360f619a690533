/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which broker id a starting broker uses, as Kafka decides it in ZooKeeper
 * mode. The inputs are broker.id, the broker.id in meta.properties of the log
 * dir (if any) and broker.id.generation.enable:
 *  - meta.properties wins when broker.id is -1; a configured id that differs
 *    from it is an error (Kafka's InconsistentBrokerIdException: the log dir
 *    belongs to another broker);
 *  - without either, an id is generated: the broker sets /brokers/seqid
 *    (any version) and takes the node's new data version plus
 *    reserved.broker.max.id, so generated ids start at reserved + 1 and never
 *    meet configured ones (gr_config_resolve keeps those <= reserved);
 *  - the id used is then written to meta.properties, so a restart keeps it.
 * The choice and the arithmetic live here, pure; zk_member.c does the store
 * write and broker.c the file.
 */
#ifndef GR_CORE_BROKER_ID_H
#define GR_CORE_BROKER_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "No id": broker.id=-1, or no meta.properties. */
#define GR_BROKER_ID_NONE (-1)

/*
 * Chooses the id from configured (broker.id, GR_BROKER_ID_NONE for -1) and
 * meta_id (meta.properties' broker.id, GR_BROKER_ID_NONE without the file).
 * Returns 0 and *out: the id, or GR_BROKER_ID_NONE when it must be generated
 * (only with generation_enable); -EINVAL with a reason in err when the two
 * ids differ, or when an id would have to be generated but generation is off.
 */
int gr_broker_id_choose(int32_t configured, int32_t meta_id, bool generation_enable,
                        int32_t *out /* out */, char *err, size_t errlen);

/*
 * The id generated from version, the data version /brokers/seqid has after
 * this broker's set: version + reserved_max. Returns 0 and *out, or -ERANGE
 * when that is not a positive int32 (a negative version, or an overflow).
 */
int gr_broker_id_from_sequence(int32_t version, int32_t reserved_max, int32_t *out /* out */);

#endif
