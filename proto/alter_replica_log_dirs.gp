api 34 AlterReplicaLogDirs
request AlterReplicaLogDirsRequest versions 0-2 flexible 2+
  Dirs []AlterReplicaLogDir 0+
    Path string 0+
    Topics []AlterReplicaLogDirTopic 0+
      Name string 0+
      Partitions []int32 0+

response AlterReplicaLogDirsResponse versions 0-2 flexible 2+
  ThrottleTimeMs int32 0+
  Results []AlterReplicaLogDirTopicResult 0+
    TopicName string 0+
    Partitions []AlterReplicaLogDirPartitionResult 0+
      PartitionIndex int32 0+
      ErrorCode int16 0+
