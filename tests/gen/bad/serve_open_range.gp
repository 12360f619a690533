# expect: 3: served versions must be a closed range
api 9000 Sample
serve 2+ gr_handle_sample
request SampleRequest versions 0-4 flexible none
response SampleResponse versions 0-4 flexible none
