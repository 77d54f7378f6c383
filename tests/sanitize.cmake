# The sanitizer run (COREMPI_SANITIZE=ON, make check-asan).  Included at the
# top of tests/CMakeLists.txt; cm_sanitize_finish() at its end, once every test
# below tests/ is registered, writes the build folder's CTestCustom.cmake,
# which ctest reads before it runs tests there: the sanitizers' options go
# into ctest's own environment (every test inherits them) and the tests left
# out of this run into CTEST_CUSTOM_TESTS_IGNORE.  A plain `ctest` in
# build-asan therefore runs exactly what `make check-asan` runs.

set(COREMPI_SANITIZE_MAX_RANKS 5 CACHE STRING
    "make check-asan: leave out the tests named *.n<N> with N above this (CI time)")

# halt_on_error, exitcode: a report ends the process with status 1, and
# mpirun passes a rank's non-zero status on as the job's.
# verify_asan_link_order=0: libcoreprof is LD_PRELOADed (mpirun --profile),
# so it comes before the ASan runtime in the library list and ASan would
# refuse to start.  Harmless here: every program of the build carries the
# runtime itself (initialised from its preinit array, before any library's
# constructor), and libcoreprof replaces no allocator function.
# The LeakSanitizer suppressions (tests/lsan.supp) say why each is there.
set(CM_ASAN_OPTIONS "detect_leaks=1:halt_on_error=1:exitcode=1:verify_asan_link_order=0")
set(CM_UBSAN_OPTIONS "print_stacktrace=1:halt_on_error=1")
set(CM_LSAN_OPTIONS "suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
# p2p_storm sends 100,000 messages of up to 256 KiB; under ASan each large
# buffer is an mmap/munmap, about 5 s of CPU per 10,000 messages at one rank,
# which passes its 120 s timeout on a busy machine.  20,000 messages still
# take every path (sizes, modes, wildcards) many times; the long storm is
# make check's.
set(CM_SAN_STORM_MESSAGES 20000)

# cm_sanitize_signal_tests(test...): tests of the current folder whose rank
# dies of SIGSEGV on purpose, to check how mpirun and the profiler report it.
# ASan's own SEGV handler would turn that death into "exit status 1": the
# signal must be left to kill the process.
function(cm_sanitize_signal_tests)
  if(COREMPI_SANITIZE)
    set_property(TEST ${ARGN} APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=${CM_ASAN_OPTIONS}:handle_segv=0")
  endif()
endfunction()

# All tests registered in DIR and the folders below it.
function(cm_all_tests dir out)
  get_property(tests DIRECTORY ${dir} PROPERTY TESTS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    cm_all_tests(${sub} more)
    list(APPEND tests ${more})
  endforeach()
  set(${out} ${tests} PARENT_SCOPE)
endfunction()

# Tests left out of the sanitizer run, one regular expression each, and why.
set(CM_SAN_LEFT_OUT
  # Open MPI and MPICH programs and their libcoreprof flavours, built by the
  # peers' own mpicc without sanitizers: not corempi's code.
  "^prof_(openmpi|mpich)_" "^report_ring_(openmpi|mpich)$"
  # Preloads corempi's (sanitized) flavour into Open MPI/MPICH programs, where
  # the ASan runtime cannot come first; what it checks has no memory in it.
  "^prof_wrong_flavour$"
  # CMake's FindMPI takes the wrapper's -fsanitize flags as compile options
  # only and links its check program without them ("DSO missing from command
  # line: libasan"), so find_package(MPI) fails against the sanitizer build;
  # the project test is about the wrapper's spellings, which make check covers.
  "^tools\\.cmake_project$"
  # src/coll built by Open MPI's mpicc over Open MPI, the same reason.
  "^coll\\.host_mpi$"
  # Builds its own sanitizer (or libFuzzer) binary of the trace reader in
  # make check already: the same run again adds nothing.
  "^report_fuzz$"
  # Bounds the release build's profiler wrappers: their instructions under
  # callgrind (valgrind does not run ASan programs: every count reads "?")
  # and their calls in the object code (a sanitized build inlines otherwise).
  "^prof_hot_path$"
  # Finds a lost wake-up by timing (a wait of 150 ms or more); under ASan on a
  # loaded 2-core machine ordinary waits pass that mark.
  "^mpi\\.wake_sleepers\\."
)

function(cm_sanitize_finish)
  cm_all_tests(${CMAKE_CURRENT_SOURCE_DIR} all)
  set(ignored)
  foreach(t IN LISTS all)
    set(out 0)
    foreach(re IN LISTS CM_SAN_LEFT_OUT)
      if(t MATCHES "${re}")
        set(out 1)
      endif()
    endforeach()
    # More ranks than COREMPI_SANITIZE_MAX_RANKS: every rank is an ASan process
    # (2-3 times the CPU, more memory) on a machine of 2 cores.
    if(t MATCHES "\\.n([0-9]+)$" AND CMAKE_MATCH_1 GREATER COREMPI_SANITIZE_MAX_RANKS)
      set(out 1)
    endif()
    if(out)
      list(APPEND ignored ${t})
    endif()
  endforeach()
  list(LENGTH all n_all)
  list(LENGTH ignored n_ignored)
  message(STATUS "COREMPI_SANITIZE: ${n_ignored} of ${n_all} tests left out of the sanitizer run (tests/sanitize.cmake)")
  string(REPLACE ";" "\n  " ignored_lines "${ignored}")
  file(WRITE ${PROJECT_BINARY_DIR}/CTestCustom.cmake
"# Written by tests/sanitize.cmake (COREMPI_SANITIZE=ON): read by ctest in this folder.
set(ENV{ASAN_OPTIONS} \"${CM_ASAN_OPTIONS}\")
set(ENV{UBSAN_OPTIONS} \"${CM_UBSAN_OPTIONS}\")
set(ENV{LSAN_OPTIONS} \"${CM_LSAN_OPTIONS}\")
set(ENV{P2P_STORM_MESSAGES} ${CM_SAN_STORM_MESSAGES})
# coreprof report under ASan: its shadow memory and quarantine add ~10 MiB to
# the streamed report's bounded footprint (73 MiB measured).
set(ENV{REPORT_STREAM_MAX_RSS_KB} 131072)
set(CTEST_CUSTOM_TESTS_IGNORE
  ${ignored_lines})
")
endfunction()
