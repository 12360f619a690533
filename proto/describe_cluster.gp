api 60 DescribeCluster
request DescribeClusterRequest versions 0-1 flexible 0+
  IncludeClusterAuthorizedOperations bool 0+
  EndpointType int8 1+ default=1

response DescribeClusterResponse versions 0-1 flexible 0+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  ErrorMessage string 0+ nullable=0+ default=null
  EndpointType int8 1+ default=1
  ClusterId string 0+
  ControllerId int32 0+ default=-1
  Brokers []DescribeClusterBroker 0+
    BrokerId int32 0+
    Host string 0+
    Port int32 0+
    Rack string 0+ nullable=0+ default=null
  ClusterAuthorizedOperations int32 0+ default=-2147483648
