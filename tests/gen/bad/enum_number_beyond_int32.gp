# expect: 5: enum CoordinatorType: bad number '2147483648' for BIG
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Key string 0+ -- a key
enum CoordinatorType GROUP=0 BIG=2147483648
