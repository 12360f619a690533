# Admin tool changes the finalized version levels of cluster features.

api 57 UpdateFeatures
request UpdateFeaturesRequest versions 0-1 flexible 0+
  timeoutMs int32 0+ default=60000 -- time limit in ms
  FeatureUpdates []FeatureUpdateKey 0+ -- requested level changes
    Feature string 0+ -- feature name
    MaxVersionLevel int16 0+ -- new max level, below 1 deletes
    AllowDowngrade bool 0 -- permit lowering the level (v0)
    UpgradeType int8 1+ default=1 -- 1 upgrade, 2 safe, 3 unsafe downgrade
  ValidateOnly bool 1+ default=false -- only check, change nothing

response UpdateFeaturesResponse versions 0-1 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
  Results []UpdatableFeatureResult 0+ -- per-feature results
    Feature string 0+ -- feature name
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
