# expect: 4: 'serve <range> <handler>' goes once, right after 'api'
api 9000 Sample
request SampleRequest versions 0-4 flexible none
serve 0-4 gr_handle_sample
response SampleResponse versions 0-4 flexible none
