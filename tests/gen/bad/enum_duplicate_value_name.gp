# expect: 5: enum CoordinatorType: value GROUP given twice
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Key string 0+ -- a key
enum CoordinatorType GROUP=0 GROUP=1
