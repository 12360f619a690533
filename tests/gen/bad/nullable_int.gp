# expect: 4: nullable versions on a int32
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Count int32 0+ nullable=0+ -- an int32 has no null
response SampleResponse versions 0-1 flexible none
