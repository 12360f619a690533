# expect: 2: bad API key '-1'
api -1 Sample
request SampleRequest versions 0-1 flexible none
response SampleResponse versions 0-1 flexible none
