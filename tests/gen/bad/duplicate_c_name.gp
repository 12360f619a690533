# expect: 5: field topicId is topic_id in C
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  TopicId uuid 0+ -- topic id
  topicId uuid 1+ -- a different spelling of the same member
response SampleResponse versions 0-1 flexible none
