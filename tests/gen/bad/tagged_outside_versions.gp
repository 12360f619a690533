# expect: 4: tagged versions outside versions
api 9000 Sample
request SampleRequest versions 0-2 flexible 1+
  Count int32 2+ tag=0 tagged=1+ -- the field starts at v2
response SampleResponse versions 0-2 flexible 1+
