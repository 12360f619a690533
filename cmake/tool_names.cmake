# Kafka's tool names for gregor-admin (src/admin/kafka_tools.c): symlinks to
# it in the build dir, so tests call them as scripts do, and install rules
# that put the same links next to the installed gregor-admin in bin/.
set(GR_KAFKA_TOOL_NAMES
    kafka-topics kafka-configs kafka-consumer-groups kafka-acls kafka-leader-election
    kafka-reassign-partitions kafka-transactions kafka-get-offsets kafka-delete-records)

if(TARGET gregor-admin)
  set(gr_tool_links)
  foreach(tool ${GR_KAFKA_TOOL_NAMES})
    foreach(link ${tool} ${tool}.sh)
      list(APPEND gr_tool_links ${CMAKE_BINARY_DIR}/${link})
      add_custom_command(
        OUTPUT ${CMAKE_BINARY_DIR}/${link}
        COMMAND ${CMAKE_COMMAND} -E create_symlink gregor-admin ${CMAKE_BINARY_DIR}/${link}
        DEPENDS gregor-admin
        COMMENT "gregor-admin as ${link}")
      install(CODE "file(MAKE_DIRECTORY \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/bin\")
                    execute_process(COMMAND \${CMAKE_COMMAND} -E create_symlink gregor-admin
                    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/bin/${link}\")
                    message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/bin/${link}\")")
    endforeach()
  endforeach()
  add_custom_target(kafka_tool_names ALL DEPENDS ${gr_tool_links})
endif()
