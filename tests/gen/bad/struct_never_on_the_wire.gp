# expect: 7: field Parts is never on the wire: Item exists in versions 0-2
api 9000 Sample
request SampleRequest versions 0-4 flexible none
  Items []Item 0-2 -- items, up to v2
struct Item versions 0+
  Index int32 0+ -- item index
  Parts []Part 4+ -- from v4, when no item is sent any more
    Size int32 0+ -- part size
response SampleResponse versions 0-4 flexible none
