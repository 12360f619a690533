# expect: 2: request needs an 'api' line first
request SampleRequest versions 0-1 flexible none
response SampleResponse versions 0-1 flexible none
