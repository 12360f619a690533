# expect: 5: bad enum name 'coordinator_type'
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Key string 0+ -- a key
enum coordinator_type GROUP=0 TRANSACTION=1
