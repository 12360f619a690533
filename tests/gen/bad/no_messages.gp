# expect: no messages
api 9000 Sample
