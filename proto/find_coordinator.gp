api 10 FindCoordinator
request FindCoordinatorRequest versions 0-5 flexible 3+
  Key string 0-3
  KeyType int8 1+ default=0
  CoordinatorKeys []string 4+

response FindCoordinatorResponse versions 0-5 flexible 3+
  ThrottleTimeMs int32 1+ ignorable
  ErrorCode int16 0-3
  ErrorMessage string 1-3 nullable=1-3 ignorable
  NodeId int32 0-3
  Host string 0-3
  Port int32 0-3
  Coordinators []Coordinator 4+
    Key string 4+
    NodeId int32 4+
    Host string 4+
    Port int32 4+
    ErrorCode int16 4+
    ErrorMessage string 4+ nullable=4+ ignorable
