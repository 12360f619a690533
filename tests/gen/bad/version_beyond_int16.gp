# expect: 4: beyond the int16 version
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Count int32 40000+ -- versions are int16 on the wire
response SampleResponse versions 0-1 flexible none
