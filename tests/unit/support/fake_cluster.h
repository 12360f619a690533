/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Other brokers and their topics, as a single-node test broker's controller
 * reads them from its store: registrations under /brokers/ids (twins of
 * this broker on a port nothing listens on: pair them with the fake peer,
 * support/fake_peer.h, which answers for them) and topics written as
 * another controller would have left them (assignment and partition state
 * nodes). Deleting a registration is how a broker's session expiring looks.
 *
 * Runs on: the test's loop thread.
 */
#ifndef GR_TEST_FAKE_CLUSTER_H
#define GR_TEST_FAKE_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "broker/broker.h"
#include "controller/controller.h"

/* A port nothing listens on: the fake peer answers for brokers registered here. */
#define GR_FAKE_CLUSTER_DEAD_PORT 1

/* Whether the controller is active, loaded, and has no read or write in flight. */
bool gr_fake_cluster_settled(void *controller);

/* The controller's live broker id, or NULL. */
gr_ctl_broker_t *gr_fake_cluster_broker(gr_controller_t *c, int32_t id);
/* The controller's topic name, or NULL. */
gr_ctl_topic_t *gr_fake_cluster_topic(gr_controller_t *c, const char *name);

/* Partition index of topic name once its state was read and exists, else NULL. */
gr_ctl_partition_t *gr_fake_cluster_partition(gr_controller_t *c, const char *name, int32_t index);

/* Registers broker id and waits until the controller counts it live. */
void gr_fake_cluster_join(gr_broker_t *b, int32_t id);
/* Deletes broker id's registration and waits until the controller dropped it. */
void gr_fake_cluster_leave(gr_broker_t *b, int32_t id);
/* Deletes broker id's registration without waiting. */
void gr_fake_cluster_unregister(gr_broker_t *b, int32_t id);

/*
 * Writes topic name with one partition on replicas (count of them) and a
 * state (leader, isr, leader_epoch, at the controller's epoch), all before
 * the loop runs again, so the controller reads them together.
 */
void gr_fake_cluster_topic_write(gr_broker_t *b, const char *name, const int32_t *replicas,
                                 int32_t count, int32_t leader, const int32_t *isr,
                                 int32_t isr_count, int32_t leader_epoch);

/* Creates path with data (may be NULL: empty); fails the test when refused. */
void gr_fake_cluster_create(gr_broker_t *b, const char *path, const char *data, size_t len);

#endif
