# expect: 4: default 300 out of range for int8
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Level int8 0+ default=300 -- does not fit
response SampleResponse versions 0-1 flexible none
