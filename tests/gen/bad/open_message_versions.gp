# expect: 3: message versions must be a closed range
api 9000 Sample
request SampleRequest versions 0+ flexible none
response SampleResponse versions 0+ flexible none
