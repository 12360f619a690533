# expect: 3: bad handler 'handle_sample' (gr_handle_<name>)
api 9000 Sample
serve 0-4 handle_sample
request SampleRequest versions 0-4 flexible none
response SampleResponse versions 0-4 flexible none
