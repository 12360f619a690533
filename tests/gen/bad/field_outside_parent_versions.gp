# expect: 5: field Name has versions 4+, none of them in its parent's 0-2
api 9000 Sample
request SampleRequest versions 0-3 flexible none
  Items []Item 0-2 -- items
    Name string 4+ -- never carried: Items ends at v2
response SampleResponse versions 0-3 flexible none
