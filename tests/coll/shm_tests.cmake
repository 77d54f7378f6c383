# Tests of the shared-memory direct collectives (src/coll/shm_*.c), included
# from tests/coll/CMakeLists.txt.
#  - coll.shm.*: coll_test with every shm algorithm forced, 1..9 ranks (8 and 9
#    oversubscribe the 2-core CI machine), plus small slots/chunks and a
#    chain tree (many pipelined chunks), mid-sized slots (large vectors in
#    pieces; 2 ranks have pieces of their own in allreduce), the single-copy protocols, and single copy switched off.
#  - coll.shm_areas.*: areas recycled across many communicators; areas
#    exhausted by many live communicators (fallback must stay right).
# CM_DIRECT_FORCE forces the first shared-memory (CM_DIRECT) algorithm of every
# collective that has one (src/coll/algorithms.def).
set(CM_DIRECT_FORCE "")
foreach(coll ${CM_COLLS})
  if(CM_DIRECTS_${coll})
    list(GET CM_DIRECTS_${coll} 0 algo)
    list(APPEND CM_DIRECT_FORCE ${CM_COLL_ENV_${coll}}=${algo})
  endif()
endforeach()
foreach(n RANGE 1 9)
  cm_coll_case(shm ${n} ENV ${CM_DIRECT_FORCE})
endforeach()
# A collective's further direct algorithms: case coll.direct<d> forces the
# d-th of each collective that has more than d, at 1..9 ranks as above.
if(CM_COLL_DIRECT_MAX GREATER 1)
  math(EXPR last "${CM_COLL_DIRECT_MAX} - 1")
  foreach(d RANGE 1 ${last})
    set(env "")
    foreach(coll ${CM_COLLS})
      list(LENGTH CM_DIRECTS_${coll} k)
      if(k GREATER d)
        list(GET CM_DIRECTS_${coll} ${d} algo)
        list(APPEND env ${CM_COLL_ENV_${coll}}=${algo})
      endif()
    endforeach()
    foreach(n RANGE 1 9)
      cm_coll_case(direct${d} ${n} ENV ${env})
    endforeach()
  endforeach()
endif()
foreach(n 2 3 8)
  cm_coll_case(shm.tiny_slots ${n}
    ENV ${CM_DIRECT_FORCE} COREMPI_SHM_SLOT=64 COREMPI_SHM_CHUNK=1000 COREMPI_SHM_FANOUT=1)
  # 64-byte slots move everything in thousands of pieces: at 8 ranks on a
  # loaded 2-core machine this case alone ran 155-180 s.
  set_tests_properties(coll.shm.tiny_slots.n${n} PROPERTIES TIMEOUT 420)
endforeach()
cm_coll_case(shm.no_single_copy 4 ENV ${CM_DIRECT_FORCE} COREMPI_SINGLE_COPY=0)
# Large vectors piece by piece through slots of an odd size (the split fold
# from 32 KiB per piece, remainders), and the single-copy protocols that
# replace the pieces when COREMPI_SHM_CHUNKED=0.
foreach(n 2 3 8)
  cm_coll_case(shm.mid_slots ${n} ENV ${CM_DIRECT_FORCE} COREMPI_SHM_SLOT=40000)
endforeach()
# The same pieces copied out with non-temporal stores (normally only from
# 1-4 MiB out per rank): every size, odd ones included, takes them here.
foreach(n 2 5)
  cm_coll_case(shm.nt_copy ${n} ENV ${CM_DIRECT_FORCE} COREMPI_SHM_SLOT=40000 COREMPI_COLL_NT_MIN=1)
endforeach()
foreach(n 3 8)
  cm_coll_case(shm.single_copy ${n} ENV ${CM_DIRECT_FORCE} COREMPI_SHM_CHUNKED=0 COREMPI_SHM_SLOT=16384)
endforeach()
# Syncs through per-rank flag lines (the default with a core per rank) forced
# at more ranks than cores, so that waiters sleep and must be woken; and the
# arrival counter forced at 2 ranks.
foreach(n 3 5 9)
  cm_coll_case(shm.flag_sync ${n} ARGS quick ENV ${CM_DIRECT_FORCE} COREMPI_SHM_SYNC=flags)
endforeach()
cm_coll_case(shm.counter_sync 2 ENV ${CM_DIRECT_FORCE} COREMPI_SHM_SYNC=counter)

# A test program of this directory, tests/coll/<name>.c, built against corempi.
function(cm_coll_program name)
  add_executable(colltest_${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c)
  target_include_directories(colltest_${name} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(colltest_${name} PRIVATE corempi)
  set_target_properties(colltest_${name} PROPERTIES
    OUTPUT_NAME ${name} RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endfunction()

cm_coll_program(shm_areas)

# --universe-size n: the areas' region grows with the universe (64 slots by
# default), and "hold" must run out of it.
function(cm_direct_areas_case name nprocs mode)
  add_test(NAME coll.shm_areas.${name}.n${nprocs}
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/shm_check.sh ${mode} --
                   ${CM_COLL_MPIRUN} -n ${nprocs} --universe-size ${nprocs} $<TARGET_FILE:colltest_shm_areas> ${ARGN})
  set_tests_properties(coll.shm_areas.${name}.n${nprocs} PROPERTIES
    TIMEOUT 180 PROCESSORS 2 LABELS coll ENVIRONMENT "${CM_DIRECT_FORCE};COREMPI_VERBOSE=coll")
endfunction()
cm_direct_areas_case(churn 4 never churn 300)
cm_direct_areas_case(churn 7 never churn 100)
cm_direct_areas_case(hold 4 exhausted hold 60)
cm_direct_areas_case(hold 3 exhausted hold 60)

# A FIFO test program: built once, run at 2 ranks with a core each and at
# 3, 5 and 9 ranks oversubscribed, with env forcing the shared-memory path.
function(cm_direct_fifo_test name env)
  cm_coll_program(${name})
  foreach(n 2 3 5 9)
    add_test(NAME coll.shm.${name}.n${n}
             COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_${name}>)
    set_tests_properties(coll.shm.${name}.n${n} PROPERTIES
      TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "${env}"
      PASS_REGULAR_EXPRESSION "${name} ok")
  endforeach()
endfunction()

# The reduce FIFO: tiny reductions back to back with a rotating, sometimes
# slow root, a non-commutative op and MPI_IN_PLACE; then tiny scans and
# exscans along the chain with a sometimes slow last rank.
cm_direct_fifo_test(reduce_fifo "COREMPI_REDUCE=shm;COREMPI_SCAN=shm;COREMPI_EXSCAN=shm")

# The broadcast FIFO: tiny broadcasts and scatters back to back with a
# rotating root and a sometimes slow reader, so roots run the whole FIFO
# ahead and must wait for the batched acknowledgements.
cm_direct_fifo_test(bcast_fifo "COREMPI_BCAST=shm;COREMPI_SCATTER=shm")

# The front ends' shortcuts for the 2-rank tiny allreduce and barrier: with
# the default selection at 1-3 ranks (only 2 has them), and at 2 ranks where
# they must stay off: another algorithm forced, syncs on the arrival counter.
cm_coll_program(shortcut)
function(cm_shortcut_case name n env)
  add_test(NAME coll.shm.shortcut.${name}.n${n}
           COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_shortcut>)
  set_tests_properties(coll.shm.shortcut.${name}.n${n} PROPERTIES
    TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "${env}" PASS_REGULAR_EXPRESSION "shortcut ok")
endfunction()
foreach(n 1 2 3)
  cm_shortcut_case(default ${n} "")
endforeach()
cm_shortcut_case(forced_shm 2 "COREMPI_ALLREDUCE=shm;COREMPI_BARRIER=shm")
cm_shortcut_case(forced_rdb 2 "COREMPI_ALLREDUCE=rdb;COREMPI_BARRIER=dissemination")
cm_shortcut_case(counter_sync 2 "COREMPI_SHM_SYNC=counter")

# A late root, then a loop of gathervs to another root in which the late
# rank sends nothing (issue 18): the FIFO's acknowledgement must wait for
# every rank, or the others wrap around the late root's unread entries.
# Default selection and both rooted collectives forced onto the shared area.
cm_coll_program(rooted_lag)
foreach(n 2 3 5 8)
  foreach(mode default shm)
    if(mode STREQUAL "shm")
      set(env "COREMPI_GATHER=shm;COREMPI_GATHERV=shm;COREMPI_REDUCE=shm;COREMPI_DEADLOCK_TIMEOUT=20")
    else()
      set(env "COREMPI_DEADLOCK_TIMEOUT=20")
    endif()
    add_test(NAME coll.shm.rooted_lag.${mode}.n${n}
             COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_rooted_lag>)
    set_tests_properties(coll.shm.rooted_lag.${mode}.n${n} PROPERTIES
      TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "${env}" PASS_REGULAR_EXPRESSION "rooted_lag ok")
  endforeach()
endforeach()

# Nonblocking collectives on the shared area (direct/nbc.c, direct/nbc_pieces.c):
# batches of every I-collective with blocking calls in between, lagging
# ranks, batches over three communicators started in rank-dependent
# interleavings, completion by Wait, Waitall, Waitany and Test loops; both
# kinds of sync; tiny slots (many rounds per call); and the point-to-point
# schedules for comparison (COREMPI_SHM_NBC=0).
cm_coll_program(shm_nbc)
function(cm_direct_nbc_case name n seed env)
  add_test(NAME coll.shm.nbc.${name}.n${n}
           COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_shm_nbc> ${seed})
  set_tests_properties(coll.shm.nbc.${name}.n${n} PROPERTIES
    TIMEOUT 180 PROCESSORS 2 LABELS coll ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20;${env}"
    PASS_REGULAR_EXPRESSION "shm_nbc ok")
endfunction()
foreach(n 1 2 3 5 8 9)
  cm_direct_nbc_case(default ${n} ${n}1 "")
endforeach()
cm_direct_nbc_case(counter 3 7 "COREMPI_SHM_SYNC=counter")
cm_direct_nbc_case(flags 5 8 "COREMPI_SHM_SYNC=flags")
cm_direct_nbc_case(p2p 3 9 "COREMPI_SHM_NBC=0")
foreach(n 2 3 5 8)
  cm_direct_nbc_case(rounds ${n} ${n}3 "COREMPI_SHM_SLOT=320")
endforeach()

# A nonblocking call that starts its protocol inside another communicator's
# blocking collective carries no argument word of its own.
# The 2-rank lane of Iallreduce/Ibarrier (direct/nbc_meet.c); at 3 ranks
# the same program runs the engine's general path.
cm_coll_program(nbc_lane)
foreach(n 1 2 3 5)
  add_test(NAME coll.shm.nbc_lane.n${n} COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_nbc_lane>)
  set_tests_properties(coll.shm.nbc_lane.n${n} PROPERTIES
    TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20"
    PASS_REGULAR_EXPRESSION "nbc_lane ok")
endforeach()
# Its cost: instructions per call of the immediate-wait case under a bound.
add_test(NAME coll.shm.nbc_cost COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/nbc_cost.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(coll.shm.nbc_cost PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS coll SKIP_RETURN_CODE 77)

cm_coll_program(shm_nbc_nested)
foreach(n 2 3 5)
  add_test(NAME coll.shm.nbc_nested.n${n}
           COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_shm_nbc_nested>)
  set_tests_properties(coll.shm.nbc_nested.n${n} PROPERTIES
    TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20"
    PASS_REGULAR_EXPRESSION "shm_nbc_nested ok")
endforeach()

# Allgatherv with equal counts and each rank's own block order: every rank
# must take the same algorithm (the choice may look at the counts only).
cm_coll_program(allgatherv_layout)
foreach(n 2 3 5)
  foreach(algo regular ring)
    add_test(NAME coll.allgatherv_layout.${algo}.n${n}
             COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_allgatherv_layout>)
    set_tests_properties(coll.allgatherv_layout.${algo}.n${n} PROPERTIES
      TIMEOUT 60 PROCESSORS 2 LABELS coll ENVIRONMENT "COREMPI_ALLGATHERV=${algo};COREMPI_DEADLOCK_TIMEOUT=10"
      PASS_REGULAR_EXPRESSION "allgatherv_layout ok")
  endforeach()
endforeach()

# Slot collectives back to back (allreduce, allgather, bcast past the
# FIFOs) with data that changes every call: a parity reused one epoch early
# overwrites a slow reader's data.
cm_coll_program(slot_loop)
foreach(n 2 3 5)
  add_test(NAME coll.shm.slot_loop.n${n} COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_slot_loop>)
  set_tests_properties(coll.shm.slot_loop.n${n} PROPERTIES TIMEOUT 120 PROCESSORS 2 LABELS coll
    ENVIRONMENT "COREMPI_ALLREDUCE=shm;COREMPI_ALLGATHER=shm;COREMPI_BCAST=shm;COREMPI_DEADLOCK_TIMEOUT=20"
    PASS_REGULAR_EXPRESSION "slot_loop ok")
endforeach()
