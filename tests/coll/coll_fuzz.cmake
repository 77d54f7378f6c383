# The randomized differential collective test (tests/coll/coll_fuzz_*.c,
# docs/testing-fuzz.md), included from tests/coll/CMakeLists.txt.
#
# Configurations: "default" (the selector's choice), "shm" (every collective
# that has a shared-memory algorithm forced onto it), "hybrid_L4" (the
# hybrids with groups of 4) and v0..v<N-1>, where variant v forces the v-th
# algorithm (modulo the list's length) of every collective, so that the N
# variants (N: the longest list) cover every algorithm of
# src/coll/algorithms.def; for make stress also
# shm_<name>: the shared-memory algorithms with other slot, sync and copy
# parameters.  The list of configurations goes to coll_fuzz_configs.txt in
# the build directory for `make stress` (tests/coll/coll_fuzz_stress.sh).
#
# make check runs each case for a time budget (rank 0 decides when to stop);
# the cases together take about two minutes at ctest -j2 (PROCESSORS 2: one
# at a time).  Test names: coll.fuzz.<config>.n<ranks>; labels coll and fuzz.

add_executable(colltest_coll_fuzz
  ${CMAKE_CURRENT_LIST_DIR}/coll_fuzz_main.c ${CMAKE_CURRENT_LIST_DIR}/coll_fuzz_gen.c
  ${CMAKE_CURRENT_LIST_DIR}/coll_fuzz_types.c ${CMAKE_CURRENT_LIST_DIR}/coll_fuzz_ref.c
  ${CMAKE_CURRENT_LIST_DIR}/coll_fuzz_call.c ${CMAKE_CURRENT_LIST_DIR}/coll_fuzz_check.c)
target_include_directories(colltest_coll_fuzz PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(colltest_coll_fuzz PRIVATE corempi)
set_target_properties(colltest_coll_fuzz PROPERTIES
  OUTPUT_NAME coll_fuzz RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# The environment of configuration <name> in CM_FUZZ_ENV_<name> (a list).
set(CM_FUZZ_CONFIGS default shm hybrid_L4)
set(CM_FUZZ_ENV_default "")
set(CM_FUZZ_ENV_shm "")
set(CM_FUZZ_ENV_hybrid_L4 COREMPI_COLL_LEVEL=4 COREMPI_ALLREDUCE=hybrid_a COREMPI_ALLGATHER=hybrid
    COREMPI_BCAST=hybrid_seg_binomial)
# Per collective its algorithms of src/coll/algorithms.def (algorithms.cmake),
# point-to-point then direct; as many variants as the longest list.
set(cm_fuzz_variants 0)
foreach(coll ${CM_COLLS})
  list(LENGTH CM_ALGOS_${coll} k)
  list(LENGTH CM_DIRECTS_${coll} d)
  math(EXPR k "${k} + ${d}")
  if(k GREATER cm_fuzz_variants)
    set(cm_fuzz_variants ${k})
  endif()
endforeach()
math(EXPR cm_fuzz_last "${cm_fuzz_variants} - 1")
foreach(v RANGE 0 ${cm_fuzz_last})
  list(APPEND CM_FUZZ_CONFIGS v${v})
  set(CM_FUZZ_ENV_v${v} "")
endforeach()
foreach(coll ${CM_COLLS})
  set(algos ${CM_ALGOS_${coll}} ${CM_DIRECTS_${coll}})
  list(LENGTH algos len)
  if(CM_DIRECTS_${coll})
    list(GET CM_DIRECTS_${coll} 0 first_direct)
    list(APPEND CM_FUZZ_ENV_shm ${CM_COLL_ENV_${coll}}=${first_direct})
  endif()
  foreach(v RANGE 0 ${cm_fuzz_last})
    math(EXPR i "${v} % ${len}")
    list(GET algos ${i} algo)
    list(APPEND CM_FUZZ_ENV_v${v} ${CM_COLL_ENV_${coll}}=${algo})
  endforeach()
endforeach()

# For make stress only: the shared-memory algorithms under the parameters the
# fixed tests of shm_tests.cmake vary (tiny slots and chunks with a chain tree,
# flag syncs oversubscribed, the arrival counter, mid-sized slots with
# non-temporal copies, single copy instead of pieces, no single copy).
foreach(extra
    "tiny_slots:COREMPI_SHM_SLOT=64;COREMPI_SHM_CHUNK=1000;COREMPI_SHM_FANOUT=1"
    "flag_sync:COREMPI_SHM_SYNC=flags"
    "counter_sync:COREMPI_SHM_SYNC=counter"
    "mid_slots_nt:COREMPI_SHM_SLOT=40000;COREMPI_COLL_NT_MIN=1"
    "single_copy:COREMPI_SHM_CHUNKED=0;COREMPI_SHM_SLOT=16384"
    "no_single_copy:COREMPI_SINGLE_COPY=0")
  string(FIND "${extra}" ":" colon)
  string(SUBSTRING "${extra}" 0 ${colon} name)
  math(EXPR colon "${colon} + 1")
  string(SUBSTRING "${extra}" ${colon} -1 env)
  list(APPEND CM_FUZZ_CONFIGS shm_${name})
  set(CM_FUZZ_ENV_shm_${name} ${CM_FUZZ_ENV_shm} ${env})
endforeach()

set(configs_file "")
foreach(c ${CM_FUZZ_CONFIGS})
  string(REPLACE ";" " " env "${CM_FUZZ_ENV_${c}}")
  string(APPEND configs_file "${c} ${env}\n")
endforeach()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/coll_fuzz_configs.txt "${configs_file}")

function(cm_fuzz_case config n seconds)
  set(name coll.fuzz.${config}.n${n})
  add_test(NAME ${name}
           COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_coll_fuzz> --seconds ${seconds})
  set_tests_properties(${name} PROPERTIES
    TIMEOUT 120 PROCESSORS 2 LABELS "coll;fuzz" PASS_REGULAR_EXPRESSION "coll_fuzz ok"
    ENVIRONMENT "${CM_FUZZ_ENV_${config}};COREMPI_DEADLOCK_TIMEOUT=20")
endfunction()

# The selector's choice at three sizes (the rooted FIFO race of issue 18 is
# found here), every shared-memory algorithm, then each variant at one size
# so that 2..9 ranks are all covered.
foreach(n 3 5 8)
  cm_fuzz_case(default ${n} 8)
endforeach()
foreach(n 2 4 9)
  cm_fuzz_case(shm ${n} 7)
endforeach()
foreach(v RANGE 0 ${cm_fuzz_last})
  math(EXPR n "2 + ${v} % 8")
  cm_fuzz_case(v${v} ${n} 6)
endforeach()
