/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Kafka version strings a broker config or topic config may name:
 * message.format.version, log.message.format.version and
 * inter.broker.protocol.version. Kafka 3.8 checks them against its list of
 * releases and their internal versions ("0.10.0-IV1", "2.8-IV1", "3.8-IV0");
 * a release alone ("0.10.0", "2.8") means its latest internal version. It
 * reads only the leading segments that name a release, three before 1.0
 * ("0.10.0"), two after ("2.8"), so "0.10.0.0" and "2.8.1" are accepted as
 * "0.10.0" and "2.8". With v2 batches only (Kafka 3.0 on) the message format
 * version has no effect: the check is all there is to it.
 *
 * Runs on: any thread (a const table).
 */
#ifndef GR_CORE_KAFKA_VERSION_H
#define GR_CORE_KAFKA_VERSION_H

#include <stdbool.h>

/* Whether the (trimmed) value v names a Kafka version Kafka 3.8 knows. */
bool gr_kafka_version_known(const char *v);

#endif
