api 20 DeleteTopics
request DeleteTopicsRequest versions 0-6 flexible 4+
  Topics []DeleteTopicState 6+
    Name string 6+ nullable=6+ default=null
    TopicId uuid 6+
  TopicNames []string 0-5 ignorable
  TimeoutMs int32 0+

response DeleteTopicsResponse versions 0-6 flexible 4+
  ThrottleTimeMs int32 1+ ignorable
  Responses []DeletableTopicResult 0+
    Name string 0+ nullable=6+
    TopicId uuid 6+ ignorable
    ErrorCode int16 0+
    ErrorMessage string 5+ nullable=5+ default=null ignorable
