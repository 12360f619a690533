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
