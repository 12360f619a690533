# expect: 6: bad version range 'always'
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Items []Item 0+ -- items
response SampleResponse versions 0-1 flexible none
struct Item versions always
  Name string 0+ -- item name
