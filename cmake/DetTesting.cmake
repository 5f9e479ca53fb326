# det_add_gtest(NAME SOURCES a.cpp ... LIBS lib ... LABELS unit|integration|pg
#               [TIMEOUT s])
# One GoogleTest executable, registered as one CTest test. Tests labelled
# "pg" get the private PostgreSQL that the pg_server fixture starts; they
# read its URL from the DET_TEST_PG_URL environment variable.
function(det_add_gtest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME ${name} COMMAND ${name} --gtest_brief=1)
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT}
    LABELS "${T_LABELS}"
    # A filter that matches nothing must not pass.
    FAIL_REGULAR_EXPRESSION "Running 0 tests")
  if("pg" IN_LIST T_LABELS)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED pg_server
      ENVIRONMENT "DET_TEST_PG_URL_FILE=${CMAKE_BINARY_DIR}/test-pg/url;DET_BIN_DIR=${CMAKE_BINARY_DIR}/bin")
  endif()
endfunction()
