/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cluster-mode topic administration as ZooKeeper-mode Kafka's admin client
 * does it: by writing the nodes the controller watches. Creating a topic
 * writes /config/topics/T then /brokers/topics/T (its assignment over the
 * live brokers); adding partitions rewrites the assignment (conditionally on
 * its version); deleting queues /admin/delete_topics/T; changing configs
 * writes /config/topics/T and a /config/changes notification every broker
 * applies. The controller and brokers do the rest; callers wait for the
 * outcome in their metadata (see handlers/admin_wait.h).
 *
 * Each function completes through done(opaque, error) on the loop, later
 * (never inside the call), with GR_KERR_NONE or Kafka's error; done may be
 * NULL (auto-creation). Returns 0, or -ENOMEM (done not called).
 *
 * Runs on: loop thread.
 */
#ifndef GR_CONTROLLER_ZK_ADMIN_H
#define GR_CONTROLLER_ZK_ADMIN_H

#include <stddef.h>
#include <stdint.h>

#include "metadata/topics.h"
#include "protocol/kerr.h"

typedef void gr_zk_admin_done_fn(void *opaque, gr_kerr_t error);

/*
 * The live brokers a new topic or partition can be placed on, sorted by id
 * (the controller's view when this broker is the controller, else the last
 * UpdateMetadata's). Returns how many (<= cap) ids were written, or with ids
 * NULL how many there are.
 */
size_t gr_zk_admin_live_brokers(const gr_broker_t *b, int32_t *ids, size_t cap);

/*
 * Creates topic name. replicas: one broker id per partition (replication
 * factor 1), or NULL to spread the partitions over the live brokers round
 * robin from a random start, as Kafka does. TOPIC_ALREADY_EXISTS when
 * /brokers/topics/name exists.
 */
int gr_zk_admin_create_topic(gr_broker_t *b, const char *name, int32_t partitions,
                             const int32_t *replicas, const gr_topic_config_t *configs,
                             int config_count, gr_zk_admin_done_fn *done, void *opaque);

/* Grows topic name to count partitions (new ones spread like creation). */
int gr_zk_admin_add_partitions(gr_broker_t *b, const char *name, int32_t count,
                               const int32_t *new_replicas, gr_zk_admin_done_fn *done,
                               void *opaque);

/* Queues the deletion of topic name. */
int gr_zk_admin_delete_topic(gr_broker_t *b, const char *name, gr_zk_admin_done_fn *done,
                             void *opaque);

/* Writes topic name's overrides (the whole set) and notifies every broker. */
int gr_zk_admin_set_configs(gr_broker_t *b, const char *name, const gr_topic_config_t *configs,
                            int count, gr_zk_admin_done_fn *done, void *opaque);

/*
 * Auto-creation's entry (Metadata, the group coordinator): checks the topic
 * and writes it for the controller to create, answering LEADER_NOT_AVAILABLE,
 * which clients retry until it has leaders; or the check's error (err says
 * why), TOPIC_ALREADY_EXISTS included.
 */
gr_kerr_t gr_admin_create_topic_now(gr_broker_t *b, const char *name, int32_t partitions,
                                    const gr_topic_config_t *configs, int config_count, char *err,
                                    size_t errlen);

/*
 * gr_topics_set_configs, then in a cluster the /config/topics document and
 * the notification every broker applies (asynchronously, a failure logged).
 */
gr_kerr_t gr_admin_set_topic_configs(gr_broker_t *b, gr_topic_t *topic,
                                     const gr_topic_config_t *configs, int count,
                                     bool validate_only, char *err, size_t errlen);

#endif
