# expect: 4: field Count has versions 5+, none of them in its parent's 0-3
api 9000 Sample
request SampleRequest versions 0-3 flexible none
  Count int32 5+ -- the message ends at v3
response SampleResponse versions 0-3 flexible none
