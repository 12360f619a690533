data OffsetCommitKey versions 0-1 flexible none
  group string 0-1
  topic string 0-1
  partition int32 0-1

data OffsetCommitValue versions 0-4 flexible 4+
  offset int64 0+
  leaderEpoch int32 3+ default=-1 ignorable
  metadata string 0+
  commitTimestamp int64 0+
  expireTimestamp int64 1 default=-1 ignorable

data GroupMetadataKey versions 2 flexible none
  group string 2

data GroupMetadataValue versions 0-4 flexible 4+
  protocolType string 0+
  generation int32 0+
  protocol string 0+ nullable=0+
  leader string 0+ nullable=0+
  currentStateTimestamp int64 2+ default=-1 ignorable
  members []MemberMetadata 0+

struct MemberMetadata versions 0+
  memberId string 0+
  groupInstanceId string 3+ nullable=3+ default=null ignorable
  clientId string 0+
  clientHost string 0+
  rebalanceTimeout int32 1+ default=-1 ignorable
  sessionTimeout int32 0+
  subscription bytes 0+
  assignment bytes 0+
