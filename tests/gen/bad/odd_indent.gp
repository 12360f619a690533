# expect: 4: indent must be a multiple of two spaces
api 9000 Sample
request SampleRequest versions 0-1 flexible none
   Count int32 0+ -- three spaces
response SampleResponse versions 0-1 flexible none
