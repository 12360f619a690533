# Client asks which broker coordinates a group or a transactional id.

api 10 FindCoordinator
serve 0-6 gr_handle_find_coordinator
request FindCoordinatorRequest versions 0-6 flexible 3+
  Key string 0-3 -- group or transactional id (v0-3)
  KeyType int8 1+ default=0 -- 0 group, 1 transaction, 2 share (v6+)
  CoordinatorKeys []string 4+ -- ids to resolve (v4+)

response FindCoordinatorResponse versions 0-6 flexible 3+
  ThrottleTimeMs int32 1+ ignorable -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0-3 -- Kafka error code, 0 on success
  ErrorMessage string 1-3 nullable=1-3 ignorable -- readable error detail, or null
  NodeId int32 0-3 -- coordinator broker id
  Host string 0-3 -- coordinator host
  Port int32 0-3 -- coordinator port
  Coordinators []Coordinator 4+ -- one answer per key
    Key string 4+ -- the id that was asked for
    NodeId int32 4+ -- coordinator broker id
    Host string 4+ -- coordinator host
    Port int32 4+ -- coordinator port
    ErrorCode int16 4+ -- Kafka error code, 0 on success
    ErrorMessage string 4+ nullable=4+ ignorable -- readable error detail, or null

# KeyType: what Key names.
enum CoordinatorType GROUP=0 TRANSACTION=1 SHARE=2
