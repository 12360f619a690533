# Records kept in the __consumer_offsets topic: committed offsets and
# classic group state, as key/value pairs.

data OffsetCommitKey versions 0-1 flexible none
  group string 0-1 -- group id
  topic string 0-1 -- topic name
  partition int32 0-1 -- partition index

data OffsetCommitValue versions 0-4 flexible 4+
  offset int64 0+ -- committed offset
  leaderEpoch int32 3+ default=-1 ignorable -- leader epoch of the offset, -1 unknown
  metadata string 0+ -- client metadata string
  commitTimestamp int64 0+ -- commit time in epoch ms
  expireTimestamp int64 1 default=-1 ignorable -- expiry time in epoch ms (v1)

data GroupMetadataKey versions 2 flexible none
  group string 2 -- group id

data GroupMetadataValue versions 0-4 flexible 4+
  protocolType string 0+ -- protocol family, e.g. consumer
  generation int32 0+ -- group generation
  protocol string 0+ nullable=0+ -- chosen protocol, or null
  leader string 0+ nullable=0+ -- leader member id, or null
  currentStateTimestamp int64 2+ default=-1 ignorable -- time of last state change, -1 unknown
  members []MemberMetadata 0+ -- group members

struct MemberMetadata versions 0+
  memberId string 0+ -- member id
  groupInstanceId string 3+ nullable=3+ default=null ignorable -- static instance id, or null
  clientId string 0+ -- client id
  clientHost string 0+ -- client host address
  rebalanceTimeout int32 1+ default=-1 ignorable -- rebalance timeout in ms, -1 unknown
  sessionTimeout int32 0+ -- session timeout in ms
  subscription bytes 0+ -- member protocol metadata bytes
  assignment bytes 0+ -- member assignment bytes

# Every key in __consumer_offsets starts with an int16 naming its record
# type (Kafka's CoordinatorRecordType); for the classic records that int16
# doubles as the key's schema version. Values carry their own int16 version.
# Types 9-15 are share-group (KIP-932) records; 16 came with Kafka 4.0's
# server-side regular expressions.
enum CoordinatorRecordType OFFSET_COMMIT_V0=0 OFFSET_COMMIT=1 GROUP_METADATA=2 CONSUMER_GROUP_METADATA=3 CONSUMER_GROUP_PARTITION_METADATA=4 CONSUMER_GROUP_MEMBER_METADATA=5 CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA=6 CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER=7 CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT=8 SHARE_GROUP_PARTITION_METADATA=9 SHARE_GROUP_MEMBER_METADATA=10 SHARE_GROUP_METADATA=11 SHARE_GROUP_TARGET_ASSIGNMENT_METADATA=12 SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER=13 SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT=14 SHARE_GROUP_STATE_PARTITION_METADATA=15 CONSUMER_GROUP_REGULAR_EXPRESSION=16 -- record type, the int16 before each key

# KIP-848 consumer groups. Each key's version is its record type above;
# every value is version 0, flexible. Fields Kafka added after 4.0 are
# tagged, so older readers skip them and Gregor reads records that carry
# them.

data ConsumerGroupMetadataKey versions 3 flexible none
  GroupId string 3 -- group id

data ConsumerGroupMetadataValue versions 0 flexible 0+
  Epoch int32 0+ -- group epoch
  MetadataHash int64 0+ tag=0 tagged=0+ default=0 -- hash of the subscribed topics' metadata (Kafka 4.1)
  CreationTimeMs int64 0+ tag=1 tagged=0+ default=-1 -- group creation time in epoch ms, -1 unknown

# Kafka 4.1 stopped using this record (the metadata hash replaced it) and
# deletes it; loaders must still accept it.
data ConsumerGroupPartitionMetadataKey versions 4 flexible none
  GroupId string 4 -- group id

data ConsumerGroupPartitionMetadataValue versions 0 flexible 0+
  Topics []TopicMetadata 0+ -- subscribed topics as last seen
    TopicId uuid 0+ -- topic UUID
    TopicName string 0+ -- topic name
    NumPartitions int32 0+ -- partition count
    PartitionMetadata []PartitionMetadata 0+ -- racks per partition, empty when unknown
      Partition int32 0+ -- partition index
      Racks []string 0+ -- racks holding a replica

data ConsumerGroupMemberMetadataKey versions 5 flexible none
  GroupId string 5 -- group id
  MemberId string 5 -- member id

data ConsumerGroupMemberMetadataValue versions 0 flexible 0+
  InstanceId string 0+ nullable=0+ -- static instance id, or null
  RackId string 0+ nullable=0+ -- rack of the member, or null
  ClientId string 0+ -- client id
  ClientHost string 0+ -- client host address
  SubscribedTopicNames []string 0+ -- topics subscribed by name
  SubscribedTopicRegex string 0+ nullable=0+ -- subscription regular expression, or null
  RebalanceTimeoutMs int32 0+ default=-1 -- max time to revoke partitions in ms
  ServerAssignor string 0+ nullable=0+ -- server assignor asked for, or null
  ClassicMemberMetadata ClassicMemberMetadata 0+ nullable=0+ default=null tag=0 tagged=0+ -- classic-protocol member's data, null for KIP-848 members
    SessionTimeoutMs int32 0+ -- classic session timeout in ms
    SupportedProtocols []ClassicProtocol 0+ -- classic protocols the member offered
      Name string 0+ -- assignor protocol name
      Metadata bytes 0+ -- the protocol's subscription bytes

data ConsumerGroupTargetAssignmentMetadataKey versions 6 flexible none
  GroupId string 6 -- group id

data ConsumerGroupTargetAssignmentMetadataValue versions 0 flexible 0+
  AssignmentEpoch int32 0+ -- group epoch the target assignment was computed for
  AssignmentTimestamp int64 0+ tag=0 tagged=0+ default=0 ignorable -- when the assignment was computed, epoch ms

data ConsumerGroupTargetAssignmentMemberKey versions 7 flexible none
  GroupId string 7 -- group id
  MemberId string 7 -- member id

data ConsumerGroupTargetAssignmentMemberValue versions 0 flexible 0+
  TopicPartitions []TopicPartition 0+ -- partitions the member should own
    TopicId uuid 0+ -- topic UUID
    Partitions []int32 0+ -- partition indexes

data ConsumerGroupCurrentMemberAssignmentKey versions 8 flexible none
  GroupId string 8 -- group id
  MemberId string 8 -- member id

enum ConsumerGroupMemberState STABLE=0 UNREVOKED_PARTITIONS=1 UNRELEASED_PARTITIONS=2 UNKNOWN=127 -- State of a current member assignment

data ConsumerGroupCurrentMemberAssignmentValue versions 0 flexible 0+
  MemberEpoch int32 0+ -- epoch the member's next heartbeat must carry
  PreviousMemberEpoch int32 0+ -- epoch before the last bump, accepted once more
  State int8 0+ -- reconciliation state, a ConsumerGroupMemberState
  AssignedPartitions []TopicPartitions 0+ -- partitions the member owns
  PartitionsPendingRevocation []TopicPartitions 0+ -- partitions the member must give up

struct TopicPartitions versions 0+
  TopicId uuid 0+ -- topic UUID
  Partitions []int32 0+ -- partition indexes
  AssignmentEpochs []int32 0+ nullable=0+ tag=0 tagged=0+ -- epoch each partition was assigned at, parallel to Partitions

# Kafka 4.0 added this record (after the schemas in
# /work/shared/kafka-protocol/internal/): what a subscription regex
# resolved to, so a new coordinator need not resolve it again.
data ConsumerGroupRegularExpressionKey versions 16 flexible none
  GroupId string 16 -- group id
  RegularExpression string 16 -- the subscription regex

data ConsumerGroupRegularExpressionValue versions 0 flexible 0+
  Topics []string 0+ -- topics the regex matched
  Version int64 0+ -- metadata version the regex was resolved against
  Timestamp int64 0+ -- resolution time in epoch ms

# KIP-932 share groups: the same shape as the consumer-group records above
# (key version = record type, values version 0, flexible). Kafka 4.x
# changed them after the October 2024 schemas (see docs/apis.md): the group
# value carries the subscription metadata hash, and the state-partition
# record lists the partitions whose state is being initialized. Kafka 4.1
# stopped writing the partition-metadata record (type 9); loaders accept it.

data ShareGroupPartitionMetadataKey versions 9 flexible none
  GroupId string 9 -- group id

data ShareGroupPartitionMetadataValue versions 0 flexible 0+
  Topics []TopicMetadata 0+ -- subscribed topics as last seen
    TopicId uuid 0+ -- topic UUID
    TopicName string 0+ -- topic name
    NumPartitions int32 0+ -- partition count
    PartitionMetadata []PartitionMetadata 0+ -- racks per partition, empty when unknown
      Partition int32 0+ -- partition index
      Racks []string 0+ -- racks holding a replica

data ShareGroupMemberMetadataKey versions 10 flexible none
  GroupId string 10 -- group id
  MemberId string 10 -- member id

data ShareGroupMemberMetadataValue versions 0 flexible 0+
  RackId string 0+ nullable=0+ -- rack of the member, or null
  ClientId string 0+ -- client id
  ClientHost string 0+ -- client host address
  SubscribedTopicNames []string 0+ -- topics subscribed by name

data ShareGroupMetadataKey versions 11 flexible none
  GroupId string 11 -- group id

data ShareGroupMetadataValue versions 0 flexible 0+
  Epoch int32 0+ -- group epoch
  MetadataHash int64 0+ -- hash of the subscribed topics' metadata

data ShareGroupTargetAssignmentMetadataKey versions 12 flexible none
  GroupId string 12 -- group id

data ShareGroupTargetAssignmentMetadataValue versions 0 flexible 0+
  AssignmentEpoch int32 0+ -- group epoch the target assignment was computed for

data ShareGroupTargetAssignmentMemberKey versions 13 flexible none
  GroupId string 13 -- group id
  MemberId string 13 -- member id

data ShareGroupTargetAssignmentMemberValue versions 0 flexible 0+
  TopicPartitions []TopicPartition 0+ -- partitions the member should own
    TopicId uuid 0+ -- topic UUID
    Partitions []int32 0+ -- partition indexes

data ShareGroupCurrentMemberAssignmentKey versions 14 flexible none
  GroupId string 14 -- group id
  MemberId string 14 -- member id

data ShareGroupCurrentMemberAssignmentValue versions 0 flexible 0+
  MemberEpoch int32 0+ -- epoch the member's next heartbeat must carry
  PreviousMemberEpoch int32 0+ -- epoch before the last bump
  State int8 0+ -- reconciliation state, a ConsumerGroupMemberState
  AssignedPartitions []ShareTopicPartitions 0+ -- partitions the member owns

struct ShareTopicPartitions versions 0+
  TopicId uuid 0+ -- topic UUID
  Partitions []int32 0+ -- partition indexes

data ShareGroupStatePartitionMetadataKey versions 15 flexible none
  GroupId string 15 -- group id

data ShareGroupStatePartitionMetadataValue versions 0 flexible 0+
  InitializingTopics []TopicPartitionsInfo 0+ -- partitions whose share state is being initialized
  InitializedTopics []TopicPartitionsInfo 0+ -- partitions with initialized share state
  DeletingTopics []TopicInfo 0+ -- topics whose share state is being deleted

struct TopicPartitionsInfo versions 0+
  TopicId uuid 0+ -- topic UUID
  TopicName string 0+ -- topic name
  Partitions []int32 0+ -- partition indexes
  CreateTimestamp int64 0+ -- when the topic was added, epoch ms

struct TopicInfo versions 0+
  TopicId uuid 0+ -- topic UUID
  TopicName string 0+ -- topic name
