api 18 ApiVersions
request ApiVersionsRequest versions 0-3 flexible 3+
  ClientSoftwareName string 3+ ignorable
  ClientSoftwareVersion string 3+ ignorable

response ApiVersionsResponse versions 0-3 flexible 3+
  ErrorCode int16 0+
  ApiKeys []ApiVersion 0+
    ApiKey int16 0+
    MinVersion int16 0+
    MaxVersion int16 0+
  ThrottleTimeMs int32 1+ ignorable
  SupportedFeatures []SupportedFeatureKey 3+ tag=0 tagged=3+ ignorable
    Name string 3+
    MinVersion int16 3+
    MaxVersion int16 3+
  FinalizedFeaturesEpoch int64 3+ tag=1 tagged=3+ default=-1 ignorable
  FinalizedFeatures []FinalizedFeatureKey 3+ tag=2 tagged=3+ ignorable
    Name string 3+
    MaxVersionLevel int16 3+
    MinVersionLevel int16 3+
  ZkMigrationReady bool 3+ tag=3 tagged=3+ default=false ignorable
