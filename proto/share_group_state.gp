# Records kept in the __share_group_state topic by the share coordinator:
# a full snapshot of a share-partition's state, and updates applied on top
# of the last snapshot. Each key starts with an int16 naming its record
# type, which is also the key's version; values carry their own int16
# version. Kafka 4.x changed these records after the October 2024 schemas
# in /work/shared/kafka-protocol/internal/ (see docs/apis.md): the snapshot
# epoch is an int32 in every version, the snapshot carries its create and
# write times, and Kafka 4.2 (KIP-1226) added the tagged delivery-complete
# count.

enum ShareCoordinatorRecordType SHARE_SNAPSHOT=0 SHARE_UPDATE=1 -- record type, the int16 before each key

data ShareSnapshotKey versions 0 flexible none
  GroupId string 0 -- group id
  TopicId uuid 0 -- topic UUID
  Partition int32 0 -- partition index

data ShareSnapshotValue versions 0 flexible 0+
  SnapshotEpoch int32 0+ -- snapshot epoch
  StateEpoch int32 0+ -- state epoch
  LeaderEpoch int32 0+ -- leader epoch last written
  StartOffset int64 0+ -- share-partition start offset
  DeliveryCompleteCount int32 0+ tag=0 tagged=0+ default=-1 -- offsets at or above the start offset done delivering, -1 unknown (Kafka 4.2)
  CreateTimestamp int64 0+ -- snapshot creation time in epoch ms
  WriteTimestamp int64 0+ -- time of the write the snapshot reflects, epoch ms
  StateBatches []StateBatch 0+ -- in-flight record states
    FirstOffset int64 0+ -- first offset of the batch
    LastOffset int64 0+ -- last offset of the batch, inclusive
    DeliveryState int8 0+ -- record state (share_state.h)
    DeliveryCount int16 0+ -- deliveries so far

data ShareUpdateKey versions 1 flexible none
  GroupId string 1 -- group id
  TopicId uuid 1 -- topic UUID
  Partition int32 1 -- partition index

data ShareUpdateValue versions 0 flexible 0+
  SnapshotEpoch int32 0+ -- epoch of the snapshot this update applies to
  LeaderEpoch int32 0+ -- leader epoch of the writer
  StartOffset int64 0+ -- new start offset, -1 if unchanged
  DeliveryCompleteCount int32 0+ tag=0 tagged=0+ default=-1 -- offsets at or above the start offset done delivering, -1 unknown (Kafka 4.2)
  StateBatches []StateBatch 0+ -- record states that changed
    FirstOffset int64 0+ -- first offset of the batch
    LastOffset int64 0+ -- last offset of the batch, inclusive
    DeliveryState int8 0+ -- record state (share_state.h)
    DeliveryCount int16 0+ -- deliveries so far
