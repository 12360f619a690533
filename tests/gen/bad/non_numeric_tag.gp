# expect: 4: bad tag 'one'
api 9000 Sample
request SampleRequest versions 0-2 flexible 1+
  Count int32 1+ tag=one tagged=1+ -- tags are numbers
response SampleResponse versions 0-2 flexible 1+
