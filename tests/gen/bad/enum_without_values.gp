# expect: 5: enum CoordinatorType has no values
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Key string 0+ -- a key
enum CoordinatorType
