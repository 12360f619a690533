# expect: 3: unknown keyword 'reqest'
api 9000 Sample
reqest SampleRequest versions 0-1 flexible none
response SampleResponse versions 0-1 flexible none
