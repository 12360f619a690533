# SPDX-License-Identifier: Apache-2.0
"""kafka-python flow for capture.sh: produce 3 messages to t2, then consume
them in group kp-group and commit. Run with Debian's /usr/bin/python3
(python3-kafka). Argument: bootstrap address (the capture proxy)."""
import sys

from kafka import KafkaConsumer, KafkaProducer


def main():
    bootstrap = sys.argv[1]
    producer = KafkaProducer(bootstrap_servers=bootstrap, client_id="kafka-python-producer")
    for i in range(3):
        producer.send("t2", key=b"kp%d" % i, value=b"kafka-python value %d" % i).get(timeout=20)
    producer.flush()
    producer.close()

    consumer = KafkaConsumer("t2", bootstrap_servers=bootstrap, group_id="kp-group",
                             client_id="kafka-python-consumer", auto_offset_reset="earliest",
                             consumer_timeout_ms=8000)
    received = 0
    for message in consumer:
        print("kafka-python got", message.topic, message.partition, message.offset)
        received += 1
        if received >= 3:
            break
    consumer.commit()
    consumer.close()
    return 0 if received == 3 else 1


if __name__ == "__main__":
    sys.exit(main())
