# First request on a connection: which API keys and version ranges the
# broker speaks, plus its feature flags.

api 18 ApiVersions
serve 0-4 gr_handle_api_versions
request ApiVersionsRequest versions 0-4 flexible 3+
  ClientSoftwareName string 3+ ignorable -- client library name
  ClientSoftwareVersion string 3+ ignorable -- client library version

response ApiVersionsResponse versions 0-4 flexible 3+
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ApiKeys []ApiVersion 0+ -- supported APIs
    ApiKey int16 0+ -- API key
    MinVersion int16 0+ -- lowest supported version
    MaxVersion int16 0+ -- highest supported version
  ThrottleTimeMs int32 1+ ignorable -- quota throttle delay in ms, 0 if none
  SupportedFeatures []SupportedFeatureKey 3+ tag=0 tagged=3+ ignorable -- features this broker can run
    Name string 3+ -- feature name
    MinVersion int16 3+ -- lowest supported feature version
    MaxVersion int16 3+ -- highest supported feature version
  FinalizedFeaturesEpoch int64 3+ tag=1 tagged=3+ default=-1 ignorable -- epoch of finalized features, -1 unknown
  FinalizedFeatures []FinalizedFeatureKey 3+ tag=2 tagged=3+ ignorable -- feature levels agreed for the whole cluster
    Name string 3+ -- feature name
    MaxVersionLevel int16 3+ -- highest finalized version level
    MinVersionLevel int16 3+ -- lowest finalized version level
  ZkMigrationReady bool 3+ tag=3 tagged=3+ default=false ignorable -- KRaft controller ready for ZK migration
