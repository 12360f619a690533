# expect: 3: serves Sample v0-5, outside SampleRequest's versions 0-4
api 9000 Sample
serve 0-5 gr_handle_sample
request SampleRequest versions 0-4 flexible none
response SampleResponse versions 0-4 flexible none
