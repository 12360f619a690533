# expect: 4: unknown type Widget
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Thing Widget 0+ -- no struct of this name
response SampleResponse versions 0-1 flexible none
