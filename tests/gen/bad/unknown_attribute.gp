# expect: 4: unknown attribute(s) nulable
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Name string 0+ nulable=0+ -- misspelt nullable
response SampleResponse versions 0-1 flexible none
