# expect: 6: field outside a message
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Key string 0+ -- a key
enum CoordinatorType GROUP=0
  Extra int32 0+ -- a field after an enum
