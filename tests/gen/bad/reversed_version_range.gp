# expect: 3: empty version range '3-1'
api 9000 Sample
request SampleRequest versions 3-1 flexible none
response SampleResponse versions 3-1 flexible none
