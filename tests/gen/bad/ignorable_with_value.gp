# expect: 4: ignorable takes no value
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Count int32 1+ ignorable=no -- a flag, not a setting
response SampleResponse versions 0-1 flexible none
