# expect: 4: indent with spaces, not tabs
api 9000 Sample
request SampleRequest versions 0-1 flexible none
	Count int32 0+ -- a tab
response SampleResponse versions 0-1 flexible none
