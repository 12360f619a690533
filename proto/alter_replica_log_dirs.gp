# Admin tool moves replicas to other log directories of the same broker.

api 34 AlterReplicaLogDirs
request AlterReplicaLogDirsRequest versions 0-2 flexible 2+
  Dirs []AlterReplicaLogDir 0+ -- target directories
    Path string 0+ -- directory path
    Topics []AlterReplicaLogDirTopic 0+ -- topics to move there
      Name string 0+ -- topic name
      Partitions []int32 0+ -- partition indexes to move

response AlterReplicaLogDirsResponse versions 0-2 flexible 2+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Results []AlterReplicaLogDirTopicResult 0+ -- per-topic results
    TopicName string 0+ -- topic name
    Partitions []AlterReplicaLogDirPartitionResult 0+ -- per-partition results
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
