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

#include "controller/replica_assignment.h"
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

/* The same brokers with their racks (borrowed: valid until the view changes). */
size_t gr_zk_admin_live_nodes(const gr_broker_t *b, gr_replica_broker_t *out, size_t cap);

/* A topic being grown: its partition 0's first replica and its partition count. */
typedef struct gr_zk_admin_grow {
    int32_t leader0;
    int32_t existing;
} gr_zk_admin_grow_t;

/*
 * Checks that factor replicas can be placed on the live brokers in mode:
 * gr_replica_assign_check's answer (msg says why).
 */
gr_kerr_t gr_zk_admin_place_check(const gr_broker_t *b, int32_t factor, gr_rack_mode_t mode,
                                  char *msg, size_t len);

/*
 * Places partitions new partitions of factor replicas over the live brokers
 * as Kafka does (replica_assignment.h): from a random start and shift, or,
 * with grow, continuing that topic's layout. out: partitions * factor ids,
 * partition-major. Returns GR_KERR_NONE, or gr_replica_assign_check's error
 * (msg says why).
 */
gr_kerr_t gr_zk_admin_place(const gr_broker_t *b, int32_t partitions, int32_t factor,
                            gr_rack_mode_t mode, const gr_zk_admin_grow_t *grow,
                            int32_t *out /* out */, char *msg, size_t len);

/*
 * Creates topic name with partitions partitions of factor replicas each.
 * replicas: partitions * factor broker ids, partition-major (the first of
 * each its preferred leader), or NULL to place them with gr_zk_admin_place
 * (rack-aware mode SAFE, as Kafka's auto-creation). TOPIC_ALREADY_EXISTS
 * when /brokers/topics/name exists. -ENODEV when NULL replicas cannot be
 * placed (factor above the live brokers).
 */
int gr_zk_admin_create_topic(gr_broker_t *b, const char *name, int32_t partitions, int32_t factor,
                             const int32_t *replicas, const gr_topic_config_t *configs,
                             int config_count, gr_zk_admin_done_fn *done, void *opaque);

/*
 * Grows topic name to count partitions. new_replicas: factor ids for each
 * new partition, partition-major; done gets INVALID_REPLICA_ASSIGNMENT if
 * factor is not the replica count of the stored partition 0. NULL (factor
 * ignored): placed like Kafka, with partition 0's replica count and
 * continuing its layout (done gets the placement's error).
 */
int gr_zk_admin_add_partitions(gr_broker_t *b, const char *name, int32_t count, int32_t factor,
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
 * why), TOPIC_ALREADY_EXISTS and INVALID_REPLICATION_FACTOR (factor above
 * the live brokers) included. Placement ignores racks unless every live
 * broker has one (Kafka's RackAwareMode.Safe).
 */
gr_kerr_t gr_admin_create_topic_now(gr_broker_t *b, const char *name, int32_t partitions,
                                    int32_t factor, const gr_topic_config_t *configs,
                                    int config_count, char *err, size_t errlen);

/*
 * gr_topics_set_configs, then in a cluster the /config/topics document and
 * the notification every broker applies (asynchronously, a failure logged).
 */
gr_kerr_t gr_admin_set_topic_configs(gr_broker_t *b, gr_topic_t *topic,
                                     const gr_topic_config_t *configs, int count,
                                     bool validate_only, char *err, size_t errlen);

#endif
