# expect: 3: bad message name 'sample_request'
api 9000 Sample
request sample_request versions 0-1 flexible none
response SampleResponse versions 0-1 flexible none
