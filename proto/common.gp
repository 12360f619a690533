# Values several APIs carry: no message of their own, only enums.

# ResourceType of the config APIs (DescribeConfigs, AlterConfigs,
# IncrementalAlterConfigs): a ConfigResource, not an ACL resource.
enum ConfigResourceType UNKNOWN=0 TOPIC=2 BROKER=4 BROKER_LOGGER=8 CLIENT_METRICS=16 GROUP=32

# ResourceType of the ACL APIs (CreateAcls, DescribeAcls, DeleteAcls).
enum AclResourceType UNKNOWN=0 ANY=1 TOPIC=2 GROUP=3 CLUSTER=4 TRANSACTIONAL_ID=5 DELEGATION_TOKEN=6 USER=7

# ACL operations; the authorized-operations bitfields (Metadata,
# DescribeGroups, DescribeCluster) set bit 1 << operation.
enum AclOperation UNKNOWN=0 ANY=1 ALL=2 READ=3 WRITE=4 CREATE=5 DELETE=6 ALTER=7 DESCRIBE=8 CLUSTER_ACTION=9 DESCRIBE_CONFIGS=10 ALTER_CONFIGS=11 IDEMPOTENT_WRITE=12 CREATE_TOKENS=13 DESCRIBE_TOKENS=14

# IsolationLevel of Fetch and ListOffsets.
enum IsolationLevel READ_UNCOMMITTED=0 READ_COMMITTED=1

# Type of the controller's LeaderAndIsr (v5+) and UpdateMetadata (v8+):
# whether the request carries every partition (KIP-516, KIP-866).
enum ControlRequestType UNKNOWN=0 INCREMENTAL=1 FULL=2
