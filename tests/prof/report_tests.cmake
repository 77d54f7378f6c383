# Tests of `coreprof report` (tools/coreprof): synthetic traces of known
# patterns, damaged input, real runs under each MPI, the HTML page in headless
# Chromium, and fuzzing of the reader + analysis.  Included from CMakeLists.txt.
if(NOT TARGET coreprof)
  return()
endif()
set(CP_REPORT_TESTS ${CMAKE_CURRENT_SOURCE_DIR})

# Writes synthetic .cpt files; built with line info so that call sites resolve.
add_executable(test_report_gen ${CP_REPORT_TESTS}/test_report_gen.c)
target_include_directories(test_report_gen PRIVATE ${PROJECT_SOURCE_DIR}/src/prof)
target_compile_options(test_report_gen PRIVATE -g -O1)
set_target_properties(test_report_gen PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})   # not a user tool: keep it out of bin/

add_test(NAME report_synthetic
  COMMAND sh ${CP_REPORT_TESTS}/test_report_synthetic.sh $<TARGET_FILE:coreprof> $<TARGET_FILE:test_report_gen> ${CP_REPORT_TESTS})
add_test(NAME report_malformed
  COMMAND sh ${CP_REPORT_TESTS}/test_report_malformed.sh $<TARGET_FILE:coreprof> $<TARGET_FILE:test_report_gen> ${CP_REPORT_TESTS})
add_test(NAME report_html_chromium
  COMMAND sh ${CP_REPORT_TESTS}/test_report_html_chromium.sh $<TARGET_FILE:coreprof> $<TARGET_FILE:test_report_gen>)
add_test(NAME report_stream
  COMMAND sh ${CP_REPORT_TESTS}/test_report_stream.sh $<TARGET_FILE:coreprof> $<TARGET_FILE:test_report_gen>)
# `coreprof report --help`: the usage on stdout, exit 0 (was "unexpected argument", 2).
add_test(NAME report_help
  COMMAND sh -c "out=$($0 report --help) && echo \"$out\" | grep -q '^usage: coreprof report DIR'" $<TARGET_FILE:coreprof>)
set_tests_properties(report_stream PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
set_tests_properties(report_synthetic report_malformed PROPERTIES TIMEOUT 120)
set_tests_properties(report_html_chromium PROPERTIES TIMEOUT 240 SKIP_RETURN_CODE 77)

# A real ring under each MPI with libcoreprof preloaded (skips when that flavour is absent).
foreach(flavour corempi openmpi mpich)
  add_test(NAME report_ring_${flavour}
    COMMAND sh ${CP_REPORT_TESTS}/test_report_mpi_ring.sh ${flavour} ${PROJECT_BINARY_DIR} ${CP_REPORT_TESTS})
  set_tests_properties(report_ring_${flavour} PROPERTIES TIMEOUT 240 SKIP_RETURN_CODE 77)
endforeach()

# libFuzzer for ~20 s when clang is there, else a sanitizer replay of the corpus.
add_test(NAME report_fuzz COMMAND sh ${CP_REPORT_TESTS}/test_report_fuzz.sh ${PROJECT_SOURCE_DIR} 20)
set_tests_properties(report_fuzz PROPERTIES TIMEOUT 300)
