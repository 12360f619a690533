# expect: 6: enum CoordinatorType declared twice
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Key string 0+ -- a key
enum CoordinatorType GROUP=0
enum CoordinatorType TRANSACTION=1
