# Admin tool asks for the cluster id, the controller and the live brokers.

api 60 DescribeCluster
serve 0-2 gr_handle_describe_cluster
request DescribeClusterRequest versions 0-2 flexible 0+
  IncludeClusterAuthorizedOperations bool 0+ -- also return cluster operations bitfield
  EndpointType int8 1+ default=1 -- list brokers (1) or controllers (2)
  IncludeFencedBrokers bool 2+ default=false -- also list fenced brokers (v2+)

response DescribeClusterResponse versions 0-2 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
  EndpointType int8 1+ default=1 -- kind of endpoints listed
  ClusterId string 0+ -- cluster id
  ControllerId int32 0+ default=-1 -- controller id, -1 if unknown
  Brokers []DescribeClusterBroker 0+ -- brokers or controllers
    BrokerId int32 0+ -- broker id
    Host string 0+ -- host name or address
    Port int32 0+ -- TCP port
    Rack string 0+ nullable=0+ default=null -- rack id, or null
    IsFenced bool 2+ default=false -- broker is fenced (v2+)
  ClusterAuthorizedOperations int32 0+ default=-2147483648 -- bitfield of allowed cluster operations

# EndpointType (v1+).
enum EndpointType UNKNOWN=0 BROKERS=1 CONTROLLERS=2
