# A schema using every construct the format has, which the generator must
# accept and whose output must compile warning-free.
api 9000 Sample
serve 1-4 gr_handle_sample
enum SampleKind PLAIN=0 FANCY=1 -- values an int8 field carries
enum SampleTimestamp LATEST=-1 EARLIEST=-2 MAX=2147483647 MIN=-2147483648
request SampleRequest versions 0-4 flexible 3+
  Name string 0+ -- a plain string
  ClientTag string 1+ nullable=1+ default=null ignorable -- nullable from v1
  Level int8 0+ default=-1 -- signed default
  Port uint16 2+ default=0x2382 -- hex default
  Ratio float64 4+ ignorable -- only in v4
  Flag bool 0+ default=true -- bool default
  Id uuid 2+ -- a uuid
  Items []Item 0+ -- array of inline structs
    Index int32 0+ -- element index
    Payload bytes 0+ nullable=0+ -- element bytes, or null
    Parts []int64 2+ -- a primitive array inside a struct
  Shared []Common 1+ nullable=3+ -- array of a shared struct
  Hint string 3+ tag=0 tagged=3+ ignorable -- a tagged field
  Extra Common 4+ tag=1 tagged=4+ -- a tagged struct
struct Common versions 0+
  Key string 0+ -- key
  Value int64 0+ default=-9223372036854775808 -- int64 minimum default
response SampleResponse versions 0-4 flexible 3+
  ErrorCode int16 0+ -- error code
  Records records 0+ nullable=0+ -- a records blob
  Throttle int32 1+ ignorable -- throttle time
