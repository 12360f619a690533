# expect: 4: request and response versions differ (0-2, 0-1)
api 9000 Sample
request SampleRequest versions 0-2 flexible none
response SampleResponse versions 0-1 flexible none
