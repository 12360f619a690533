# expect: 4: tagged versions outside flexible versions
api 9000 Sample
request SampleRequest versions 0-2 flexible 1+
  Count int32 0+ tag=0 tagged=0+ -- v0 has no tag section
response SampleResponse versions 0-2 flexible 1+
