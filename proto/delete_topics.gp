# Admin tool removes topics, named or by id.

api 20 DeleteTopics
serve 0-6 gr_handle_delete_topics
request DeleteTopicsRequest versions 0-6 flexible 4+
  Topics []DeleteTopicState 6+ -- topics to delete (v6+)
    Name string 6+ nullable=6+ default=null -- topic name, null when by id
    TopicId uuid 6+ -- topic UUID, zero when by name
  TopicNames []string 0-5 ignorable -- topic names to delete (v0-5)
  TimeoutMs int32 0+ -- time limit for deletion in ms

response DeleteTopicsResponse versions 0-6 flexible 4+
  ThrottleTimeMs int32 1+ ignorable -- quota throttle delay in ms, 0 if none
  Responses []DeletableTopicResult 0+ -- per-topic results
    Name string 0+ nullable=6+ -- topic name, or null
    TopicId uuid 6+ ignorable -- topic UUID
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 5+ nullable=5+ default=null ignorable -- readable error detail, or null
