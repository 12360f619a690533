# expect: 4: bad tag '-1'
api 9000 Sample
request SampleRequest versions 0-2 flexible 1+
  Count int32 1+ tag=-1 tagged=1+ -- tags are unsigned varints
response SampleResponse versions 0-2 flexible 1+
