# expect: 4: 'serve <range> <handler>' goes once, right after 'api'
api 9000 Sample
serve 0-4 gr_handle_sample
serve 0-3 gr_handle_sample
request SampleRequest versions 0-4 flexible none
response SampleResponse versions 0-4 flexible none
