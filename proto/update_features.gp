api 57 UpdateFeatures
request UpdateFeaturesRequest versions 0-1 flexible 0+
  timeoutMs int32 0+ default=60000
  FeatureUpdates []FeatureUpdateKey 0+
    Feature string 0+
    MaxVersionLevel int16 0+
    AllowDowngrade bool 0
    UpgradeType int8 1+ default=1
  ValidateOnly bool 1+ default=false

response UpdateFeaturesResponse versions 0-1 flexible 0+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  ErrorMessage string 0+ nullable=0+
  Results []UpdatableFeatureResult 0+
    Feature string 0+
    ErrorCode int16 0+
    ErrorMessage string 0+ nullable=0+
