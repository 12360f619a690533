# expect: 4: bad type name 'int33'
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Count int33 0+ -- not a primitive
response SampleResponse versions 0-1 flexible none
