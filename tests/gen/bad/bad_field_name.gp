# expect: 4: bad field name 'max_bytes'
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  max_bytes int32 0+ -- snake case would be snake-cased again
response SampleResponse versions 0-1 flexible none
