# Mismatched arguments across the ranks of a collective (issue 18 item 4,
# docs/collectives.md "Mismatched arguments"): tests/coll/mismatch.c at 2, 3
# and 5 ranks.  Without COREMPI_CHECK the cases the default check catches,
# by the tuned selection and with the shared-memory algorithms forced; with
# COREMPI_CHECK=1 every case, by the tuned selection and with the
# shared-memory and the point-to-point algorithms forced; "fresh": the
# default cases, each as its communicator's first collective (no matched
# warm-up call: the ranks attach the shared-memory area in that call).  A
# hang ends in the deadlock report (COREMPI_DEADLOCK_TIMEOUT) and fails the
# test.
cm_coll_program(mismatch)
set(CM_MISMATCH_SHM "COREMPI_ALLREDUCE=shm;COREMPI_BCAST=shm;COREMPI_REDUCE=shm;COREMPI_GATHER=shm;COREMPI_SCATTER=shm")
set(CM_MISMATCH_P2P "COREMPI_ALLREDUCE=rdb;COREMPI_BCAST=binomial_ordered;COREMPI_REDUCE=binomial;COREMPI_GATHER=linear;COREMPI_SCATTER=linear")
foreach(n 2 3 4 5)
  foreach(mode default fresh shm check check_shm check_p2p)
    set(env "COREMPI_DEADLOCK_TIMEOUT=20")
    set(args "")
    if(mode STREQUAL "fresh")
      set(args --fresh)
    endif()
    if(mode MATCHES "^check")
      list(APPEND env "COREMPI_CHECK=1")
      set(args --all)
    endif()
    if(mode MATCHES "shm")
      list(APPEND env ${CM_MISMATCH_SHM})
    elseif(mode MATCHES "p2p")
      list(APPEND env ${CM_MISMATCH_P2P})
    endif()
    add_test(NAME coll.mismatch.${mode}.n${n}
             COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_mismatch> ${args})
    set_tests_properties(coll.mismatch.${mode}.n${n} PROPERTIES
      TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "${env}" PASS_REGULAR_EXPRESSION "mismatch ok")
  endforeach()
endforeach()

# Two roots of one broadcast-FIFO call race for its entry (coll/direct/fifo.c,
# cm_direct_bfifo_own): 2000 rounds, the roots started at one instant of the
# shared clock; exactly one may write the entry, the other must see it
# (scripts/mutations/35: a claim by load and store is caught here only).
foreach(n 2 3)
  add_test(NAME coll.mismatch.roots_stress.n${n}
           COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_mismatch> --repeat 2000 bcast_root)
  set_tests_properties(coll.mismatch.roots_stress.n${n} PROPERTIES
    TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20" PASS_REGULAR_EXPRESSION "mismatch ok")
endforeach()

# Issue 32: a mismatched call followed by a matched allreduce on the same
# communicator (--then).  The rank that sees the mismatch first returns and
# arrives at the allreduce's sync while the other may still be in the
# mismatched one: it must not take that later epoch for agreement
# (coll/direct/sync.c, other_word; docs/protocols.md 3.4).  On main 9ef2779
# the allgatherv cases failed one run in two at 2 ranks, the others 1-5
# repeats in 200; with 100 repeats each n2 failed 5 runs of 5 there
# (scripts/mutations/56).  n3 passed there (flag lines per parity keep the
# word): it guards the flag sync.
foreach(n 2 3)
  add_test(NAME coll.mismatch.then_stress.n${n}
           COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_mismatch> --then --repeat 100
                   allgatherv_5_7 allgatherv_5_1000 allgatherv_send_3_5 allgatherv_0_5 allreduce_int_float
                   allreduce_op allgather_int_float iallreduce_int_float iallreduce_1_2)
  set_tests_properties(coll.mismatch.then_stress.n${n} PROPERTIES
    TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20" PASS_REGULAR_EXPRESSION "mismatch ok")
endforeach()

# The default error handler: the job ends with the library's one-line
# message naming the call, the rank and the argument.
set(CM_MISMATCH_FAIL sh ${PROJECT_SOURCE_DIR}/tests/mpi/expect_fail.sh --status nonzero --max-seconds 20
    --program $<TARGET_FILE:colltest_mismatch>)
add_test(NAME coll.mismatch.fatal.n2
         COMMAND ${CM_MISMATCH_FAIL} --stderr "corempi: MPI_Allreduce on rank [01]: message size differs across ranks"
                 -- ${CM_COLL_MPIRUN} -n 2 $<TARGET_FILE:colltest_mismatch> --fatal allreduce_5_1900)
add_test(NAME coll.mismatch.fatal_check.n3
         COMMAND ${CM_MISMATCH_FAIL} --stderr "corempi: MPI_Bcast on rank [0-2]: message size differs across ranks.*100000|400000 bytes"
                 -- ${CM_COLL_MPIRUN} -n 3 $<TARGET_FILE:colltest_mismatch> --fatal bcast_big)
# One must-fail case under the default error handler: test
# coll.mismatch.<prefix>_<name>.n<n> expects stderr to match the line; force:
# COREMPI_* settings for the run ("" for none).
function(cm_mismatch_fatal prefix name n line force)
  add_test(NAME coll.mismatch.${prefix}_${name}.n${n}
           COMMAND ${CM_MISMATCH_FAIL} --stderr "corempi: ${line}"
                   -- ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_mismatch> --fatal ${name})
  set_tests_properties(coll.mismatch.${prefix}_${name}.n${n} PROPERTIES
    TIMEOUT 90 LABELS coll RESOURCE_LOCK colltest_mismatch ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20;${force}")
endfunction()

# Issue 32 item 2: the ranks take different paths (FIFO, slots, point to
# point) or different collectives; on main 913623a each of these hung or
# passed silently (the *_fresh ones, a communicator's first collective, on
# main d2e4243).  The default error handler ends the job with the line.
foreach(c "bcast_1900_5;3;MPI_Bcast on rank [12]: message size differs across ranks.*7600 bytes on rank 0"
          "reduce_5_10;2;MPI_Reduce on rank 0: message size differs across ranks.*20 bytes here, 40 bytes on rank 1"
          "gather_1000_10;2;MPI_Gather on rank 0: message size differs across ranks"
          "barrier_bcast;2;MPI_Barrier on rank 0: rank 1 is in MPI_Bcast at the same point"
          "barrier_bcast0;3;MPI_(Barrier|Bcast) on rank [0-2]: .*(different collectives)"
          "allreduce_int_float;2;MPI_Allreduce on rank [01]: type signature differs across ranks \\(same size\\): MPI_(INT|FLOAT) here"
          "bcast_root;2;MPI_Bcast on rank [01]: root differs across ranks"
          "bcast_5_1900_fresh;4;MPI_Bcast on rank [1-3]: message size differs across ranks.*7600 bytes here, 20 bytes on rank 0"
          "bcast_1900_5_fresh;4;MPI_Bcast on rank [1-3]: message size differs across ranks.*20 bytes here, 7600 bytes on rank 0"
          "bcast_int_float;3;MPI_Bcast on rank [12]: type signature differs across ranks: MPI_FLOAT here, another type on rank 0"
          "allgather_int_float;2;MPI_Allgather on rank [01]: type signature differs across ranks \\(same size\\): MPI_(INT|FLOAT) here"
          "iallreduce_5_1900;2;MPI_Iallreduce on rank [01]: message size differs across ranks"
          "allreduce_init_1_2;3;MPI_Allreduce_init on rank [0-2]: message size differs across ranks"
          "ibcast_root;2;MPI_Ibcast on rank [01]: root differs across ranks"
          "iallreduce_5_1900_fresh;3;MPI_Iallreduce on rank [0-2]: message size differs across ranks"
          "ireduce_5_10_fresh;2;MPI_Ireduce on rank 0: message size differs across ranks.*20 bytes here, 40 bytes on rank 1"
          "igather_int_float_fresh;2;MPI_Igather on rank 0: type signature differs across ranks"
          # The v and w forms' per-rank counts (on main 74a26ff: success or a hang).
          "scatterv_1000_5;3;MPI_Scatterv on rank 2: message size differs across ranks.*4000 bytes here, 20 bytes on rank 0"
          "alltoallv_5_1000;4;MPI_Alltoallv on rank 0: message size differs across ranks.*20 bytes here, 4000 bytes on rank 3"
          "alltoallw_0_5;2;MPI_Alltoallw on rank [01]: message size differs across ranks"
          "allgatherv_send_3_5;3;MPI_Allgatherv on rank [0-2]: block sizes differ across ranks"
          "reduce_int_float;2;MPI_Reduce on rank 0: type signature differs across ranks \\(same size\\): MPI_INT here, MPI_FLOAT on rank 1"
          "reduce_layout;2;MPI_Reduce on rank 0: rank 1 runs this call another way with the same collective, op, root, type class and size"
          "ireduce_int_float_fresh;3;MPI_Ireduce on rank 0: type signature differs across ranks \\(same size\\): MPI_INT here, MPI_FLOAT on rank [12]"
          # The whole class beside the data (classes sharing the word's 4-bit
          # hash; alltoallv/w, no class in their word): success on main 793b128.
          "bcast_int_uint8;3;MPI_Bcast on rank [12]: type signature differs across ranks \\(same size\\): MPI_UINT8_T here, MPI_INT on rank 0"
          "gatherv_int_uint8;3;MPI_Gatherv on rank 0: type signature differs across ranks \\(same size\\): MPI_INT here, MPI_UINT8_T on rank [12]"
          "alltoallw_int_float;3;MPI_Alltoallw on rank 0: type signature differs across ranks \\(same size\\): MPI_INT here, MPI_FLOAT on rank 2"
          "alltoallv_int_float;2;MPI_Alltoallv on rank [01]: type signature differs across ranks \\(same size\\): MPI_(INT|FLOAT) here, MPI_(INT|FLOAT) on rank [01]")
  cm_mismatch_fatal(fatal ${c} "")
endforeach()
# Issue 32 item 2: a rank that only got the poison of a mismatched call says
# so, pointing at the rank that saw it; mpirun holds that line until the
# naming one is out (src/launch/watch.c), so the first line names the
# arguments.  (On main 0f466a0 the pointing rank slept half a second
# instead.)
foreach(c "iallreduce_5_1900_fresh;3;MPI_Iallreduce on rank 0: message size differs across ranks;"
          "allreduce_5_1900;4;MPI_Allreduce on rank [0-3]: message size differs across ranks;COREMPI_ALLREDUCE=rdb")
  list(GET c 0 name)
  list(GET c 1 n)
  list(GET c 2 line)
  list(GET c 3 force)
  add_test(NAME coll.mismatch.fatal_first_${name}.n${n}
           COMMAND ${CM_MISMATCH_FAIL} --first "corempi: ${line}"
                   -- ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_mismatch> --fatal ${name})
  set_tests_properties(coll.mismatch.fatal_first_${name}.n${n} PROPERTIES
    TIMEOUT 90 LABELS coll RESOURCE_LOCK colltest_mismatch ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20;${force}")
endforeach()
# Issue 32 item 2: classes per message (docs/collectives.md "Classes per
# message").  Alltoallv/w type signatures off the area's rounds: the
# pairwise algorithm (forced at 3 ranks, the default above 8) and the
# nonblocking forms; intercommunicator roots and type classes, blocking and
# nonblocking.  On main d9c0950 each returned MPI_SUCCESS with the other
# type's bits (or, in inter_*bcast_root, a rank's root ignored).
set(CM_MISMATCH_BLOCKS alltoallv_int_float alltoallw_int_float alltoallv_int_float_1000 alltoallw_int_float_1000
    ialltoallv_int_float ialltoallw_int_float)
set(CM_MISMATCH_INTER inter_igather_int_float inter_iallgather_int_float inter_ireduce_int_float inter_ibcast_root
    inter_gather_int_float inter_allgather_int_float inter_reduce_int_float inter_bcast_root)
foreach(c pairwise.3 default.9 default.10)
  string(REPLACE "." ";" c "${c}")
  list(GET c 0 mode)
  list(GET c 1 n)
  set(force "")
  if(mode STREQUAL "pairwise")
    set(force "COREMPI_ALLTOALLV=pairwise;COREMPI_ALLTOALLW=pairwise")
  endif()
  add_test(NAME coll.mismatch.blocks_${mode}.n${n}
           COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_mismatch> ${CM_MISMATCH_BLOCKS})
  set_tests_properties(coll.mismatch.blocks_${mode}.n${n} PROPERTIES
    TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=30;${force}"
    PASS_REGULAR_EXPRESSION "mismatch ok")
endforeach()
foreach(n 4 5)
  add_test(NAME coll.mismatch.inter.n${n}
           COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_mismatch> ${CM_MISMATCH_INTER})
  set_tests_properties(coll.mismatch.inter.n${n} PROPERTIES
    TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20" PASS_REGULAR_EXPRESSION "mismatch ok")
endforeach()
# (At 9 ranks the rank that saw it and those its poisoned messages reached
# race to end the job first.)
foreach(c "alltoallw_int_float;9;MPI_Alltoallw on rank [0-8]: (type signature differs across ranks \\(same size\\): MPI_INT here, MPI_FLOAT on rank 8|rank [0-8] saw the ranks' arguments differ earlier)"
          "ialltoallw_int_float;3;MPI_Ialltoallw on rank 0: type signature differs across ranks \\(same size\\): MPI_INT here, MPI_FLOAT on rank 2"
          "inter_bcast_root;4;MPI_Bcast on rank 3: root differs across ranks: 1 here, 0 on rank 0"
          "inter_iallgather_int_float;2;MPI_Iallgather on rank 0: type signature differs across ranks \\(same size\\): MPI_INT here, MPI_FLOAT on rank 0")
  cm_mismatch_fatal(fatal ${c} "")
endforeach()

set_tests_properties(coll.mismatch.fatal.n2 coll.mismatch.fatal_check.n3 PROPERTIES
  TIMEOUT 90 LABELS coll RESOURCE_LOCK colltest_mismatch ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20")
set_tests_properties(coll.mismatch.fatal_check.n3 PROPERTIES
  ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20;COREMPI_CHECK=1")

# No false alarms: the whole collective suite (mixed types such as n MPI_2INT
# against 2n MPI_INT, mixed layouts, every root, in-place) under COREMPI_CHECK=1.
add_test(NAME coll.mismatch.check_coll_test.n3 COMMAND ${CM_COLL_MPIRUN} -n 3 $<TARGET_FILE:colltest_coll_test>)
set_tests_properties(coll.mismatch.check_coll_test.n3 PROPERTIES
  TIMEOUT 300 PROCESSORS 2 LABELS coll ENVIRONMENT "COREMPI_CHECK=1;COREMPI_DEADLOCK_TIMEOUT=30"
  PASS_REGULAR_EXPRESSION "checks passed")

# No false alarms from the default check (issue 32 item 2): signature-equal
# types, MPI_PACKED, MPI_BYTE, empty calls with any type, v forms whose
# zero-count ranks name other types; by the tuned selection and with the
# shared-memory algorithms forced; "sched": the nonblocking and persistent
# calls on point-to-point schedules (COREMPI_SHM_NBC=0), whose receives
# compare what they get (coll/nbc.c).
cm_coll_program(mismatch_agree)
foreach(n 2 3 4 5)
  foreach(mode default shm sched)
    set(env "COREMPI_DEADLOCK_TIMEOUT=20")
    if(mode STREQUAL "shm")
      list(APPEND env ${CM_MISMATCH_SHM} "COREMPI_ALLGATHER=shm;COREMPI_ALLTOALL=shm;COREMPI_GATHERV=shm;COREMPI_SCATTERV=shm;COREMPI_ALLTOALLV=shm")
    elseif(mode STREQUAL "sched")
      list(APPEND env "COREMPI_SHM_NBC=0")
    endif()
    add_test(NAME coll.mismatch_agree.${mode}.n${n}
             COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_mismatch_agree>)
    set_tests_properties(coll.mismatch_agree.${mode}.n${n} PROPERTIES
      TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "${env}" PASS_REGULAR_EXPRESSION "mismatch_agree ok")
  endforeach()
endforeach()

# Issue 32 item 2: the point-to-point algorithms' messages carry the argument
# word in their tags (docs/collectives.md, "Point-to-point algorithms").
# Variant v forces, for every collective, the v-th of its point-to-point
# algorithms (mod their number) by its COREMPI_<COLL> name, so each one is
# forced in some variant; at 2, 3, 4 and 5 ranks, the cases of
# mismatch.c --p2p (counts, ops, signature classes, per-rank v counts) must
# end in an error, not success or a hang.  --keep: a case's communicator is
# not freed (surplus segments of a disagreeing rank may still arrive).
# On main d2e4243 every variant fails (success with wrong data).
math(EXPR cm_mm_last "${CM_COLL_ALGO_MAX} - 1")
foreach(v RANGE 0 ${cm_mm_last})
  set(env "COREMPI_DEADLOCK_TIMEOUT=20")
  foreach(coll ${CM_COLLS})
    list(LENGTH CM_ALGOS_${coll} k)
    math(EXPR i "${v} % ${k}")
    list(GET CM_ALGOS_${coll} ${i} algo)
    list(APPEND env ${CM_COLL_ENV_${coll}}=${algo})
  endforeach()
  foreach(n 2 3 4 5)
    add_test(NAME coll.mismatch.p2p_v${v}.n${n}
             COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_mismatch> --keep --p2p)
    # the lock: expect_fail.sh's leftover check (the fatal tests) looks for
    # any process of this binary
    set_tests_properties(coll.mismatch.p2p_v${v}.n${n} PROPERTIES
      TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "${env}" PASS_REGULAR_EXPRESSION "mismatch ok"
      RESOURCE_LOCK colltest_mismatch)
  endforeach()
endforeach()

# The nonblocking and persistent calls on point-to-point schedules
# (COREMPI_SHM_NBC=0: never the shared-memory engine; coll/nbc.c compares
# what every receive gets): on main 714fc05 each returned MPI_SUCCESS with
# wrong data.  ibcast_root and bcast_init_root are not caught there (two
# roots: no rank need receive from the wrong one).
set(CM_MISMATCH_SCHED iallreduce_5_1900 iallreduce_1_2 iallreduce_big iallreduce_int_float ibcast_10_5
    ireduce_5_10 ireduce_int_float igather_int_float allreduce_init_5_1900 allreduce_init_1_2)
# Issue 32 item 2: the v and w forms (Igatherv, Gatherv_init, Iscatterv,
# Iallgatherv, Ialltoallv, Ialltoallw), Iscan, Scan_init, Iexscan and Ireduce_scatter
# with other counts or ops, and different collectives on one communicator (a
# v form against the regular one, scan against exscan, scan against
# allreduce), the intercommunicator forms (Ibcast, Iallreduce of other
# counts), each followed by matched calls on the same communicator: on
# main 74a26ff each returned MPI_SUCCESS with wrong data or hung until the
# deadlock report (their schedules carried no word).
list(APPEND CM_MISMATCH_SCHED igatherv_7_5 igatherv_5_1000 igatherv_big_5 gatherv_init_7_5 iscatterv_5_3 iallgatherv_3_5
     ialltoallv_6_4 ialltoallw_6_4 iscan_3_5 iscan_op iexscan_3_5 iexscan_op scan_init_3_5 ireduce_scatter_3_5
     igatherv_igather_fresh iscatterv_iscatter_fresh ialltoallv_ialltoall_fresh iallgatherv_iallgather_fresh
     iscan_iexscan_fresh
     iscan_iallreduce inter_ibcast_10_5 inter_iallreduce_5_10
     # classes 64 apart (the tags carried 6 of 8 bits: success on 0f466a0)
     iallreduce_int_f16 ireduce_int_f16)
# Issue 32 item 2: a count of 0 on some ranks only in the nonblocking and
# persistent forms (i<coll>_0_5, i<coll>_5_0, <coll>_init_0_5; on main
# d9c0950 success or the deadlock report; they run in the default, fresh and
# shm modes above too, on the shared-memory engine).
foreach(c bcast reduce allreduce gather scatter allgather alltoall rsb scan exscan reduce_scatter)
  list(APPEND CM_MISMATCH_SCHED i${c}_0_5 i${c}_5_0 ${c}_init_0_5)
endforeach()
foreach(n 2 3 4 5)
  add_test(NAME coll.mismatch.sched.n${n}
           COMMAND ${CM_COLL_MPIRUN} -n ${n} $<TARGET_FILE:colltest_mismatch> ${CM_MISMATCH_SCHED})
  set_tests_properties(coll.mismatch.sched.n${n} PROPERTIES
    TIMEOUT 120 PROCESSORS 2 LABELS coll ENVIRONMENT "COREMPI_DEADLOCK_TIMEOUT=20;COREMPI_SHM_NBC=0"
    PASS_REGULAR_EXPRESSION "mismatch ok")
endforeach()
cm_mismatch_fatal(fatal_sched allreduce_init_1_2 3 "MPI_Allreduce_init on rank [0-2]: message size differs across ranks"
                  "COREMPI_SHM_NBC=0")
cm_mismatch_fatal(fatal_sched igatherv_7_5 3 "MPI_Igatherv on rank 2: message size differs across ranks.*20 bytes here, 28 bytes on rank 0" "")
cm_mismatch_fatal(fatal_sched igatherv_igather_fresh 2 "MPI_Igatherv on rank 0: rank 1 is in MPI_Gather at the same point" "")

# The default error handler with point-to-point algorithms: the job ends with
# the same one-line message as the shared-memory check's (in the ring, a rank
# downstream of the ones that disagree may end the job first, with its line).
foreach(c "allreduce_op;2;MPI_Allreduce on rank [01]: op differs across ranks: MPI_(SUM|MAX) here;COREMPI_ALLREDUCE=rdb"
          "allreduce_5_1900;3;MPI_Allreduce on rank [0-2]: (message size differs across ranks|rank [0-2] saw the ranks' arguments differ earlier);COREMPI_ALLREDUCE=ring"
          "reduce_5_10;3;MPI_Reduce on rank 0: message size differs across ranks.*20 bytes here, 40 bytes on rank [12];COREMPI_REDUCE=binomial"
          "bcast_10_5;2;MPI_Bcast on rank 1: message size differs across ranks.*20 bytes here, 40 bytes on rank 0;COREMPI_BCAST=binomial_ordered")
  cm_mismatch_fatal(fatal_p2p ${c})
endforeach()
