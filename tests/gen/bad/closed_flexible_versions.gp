# expect: 3: flexible versions must be open-ended
api 9000 Sample
request SampleRequest versions 0-3 flexible 1-2
response SampleResponse versions 0-3 flexible 1+
