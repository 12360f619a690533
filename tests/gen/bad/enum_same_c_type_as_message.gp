# expect: 5: enum SampleRequest: gr_sample_request_t also declared at
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Key string 0+ -- a key
enum SampleRequest A=0
