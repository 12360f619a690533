# expect: 4: expected '<Name> <type> <versions> [attrs]'
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Count -- a name and nothing else
response SampleResponse versions 0-1 flexible none
