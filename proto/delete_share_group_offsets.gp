# Admin: removes topics (and their share state) from an empty share group.

api 92 DeleteShareGroupOffsets
serve 0 gr_handle_delete_share_group_offsets
request DeleteShareGroupOffsetsRequest versions 0 flexible 0+
  GroupId string 0+ -- group id
  Topics []DeleteShareGroupOffsetsRequestTopic 0+ -- topics to delete
    TopicName string 0+ -- topic name

response DeleteShareGroupOffsetsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- top-level Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ default=null -- top-level error detail, or null
  Responses []DeleteShareGroupOffsetsResponseTopic 0+ -- per-topic results
    TopicName string 0+ -- topic name
    TopicId uuid 0+ -- topic UUID
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
