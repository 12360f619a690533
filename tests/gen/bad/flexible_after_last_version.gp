# expect: 3: flexible from 5, after the last version 3
api 9000 Sample
request SampleRequest versions 0-3 flexible 5+
response SampleResponse versions 0-3 flexible none
