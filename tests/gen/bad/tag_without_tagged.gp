# expect: 4: tag= and tagged= go together
api 9000 Sample
request SampleRequest versions 0-2 flexible 1+
  Count int32 1+ tag=0 -- which versions carry it tagged?
response SampleResponse versions 0-2 flexible 1+
