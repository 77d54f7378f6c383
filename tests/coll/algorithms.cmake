# The collectives and their algorithms, read from src/coll/algorithms.def
# (the list select.c is built from), included from tests/coll/CMakeLists.txt.
# Sets
#   CM_COLLS                  the collectives, lower case, in enum order
#   CM_COLL_ENV_<coll>        the COREMPI_<COLL> variable that forces one
#   CM_ALGOS_<coll>           its point-to-point algorithms, in list order
#   CM_DIRECTS_<coll>         its shared-memory (direct) algorithms
#   CM_COLL_ALGO_MAX          the most point-to-point algorithms of a collective
#   CM_COLL_DIRECT_MAX        the most direct algorithms of a collective
# and, as cm_coll_case's bookkeeping, cm_coll_check_covered(): a configure
# error when an algorithm of the list is forced by no test.  Tests
# coll.algorithms.registry (the registry built into corempi, as
# bench/coll_algos prints it, is the list) and coll.algorithms.docs (every
# algorithm is named in the tables of docs/collectives.md / shm-coll.md) and
# coll.algorithms.tuning (every row of src/coll/tuning.def names one).

set(CM_ALGORITHMS_DEF ${PROJECT_SOURCE_DIR}/src/coll/algorithms.def)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CM_ALGORITHMS_DEF})
file(STRINGS ${CM_ALGORITHMS_DEF} cm_def_lines REGEX "^CM_(COLL|ALGO|DIRECT)\\(")

set(CM_COLLS "")
set(CM_COLL_ALGO_MAX 0)
set(CM_COLL_DIRECT_MAX 0)
set(cm_current "")
foreach(line ${cm_def_lines})
  if(line MATCHES "^CM_COLL\\(([a-z_]+), *([A-Z_]+)\\)")
    set(cm_current ${CMAKE_MATCH_1})
    list(APPEND CM_COLLS ${cm_current})
    set(CM_COLL_ENV_${cm_current} COREMPI_${CMAKE_MATCH_2})
    set(CM_ALGOS_${cm_current} "")
    set(CM_DIRECTS_${cm_current} "")
  elseif(line MATCHES "^CM_(ALGO|DIRECT)\\(([a-z_]+), *([a-z0-9_]+),")
    set(kind ${CMAKE_MATCH_1})
    set(coll ${CMAKE_MATCH_2})
    set(name ${CMAKE_MATCH_3})
    # select.c takes a collective's rows as those after its CM_COLL line.
    if(NOT coll STREQUAL cm_current)
      message(FATAL_ERROR "algorithms.def: ${coll} algorithm ${name} is listed under CM_COLL(${cm_current})")
    endif()
    if(kind STREQUAL "ALGO")
      list(APPEND CM_ALGOS_${coll} ${name})
    else()
      list(APPEND CM_DIRECTS_${coll} ${name})
    endif()
  else()
    message(FATAL_ERROR "algorithms.def: cannot read \"${line}\" (one macro per line)")
  endif()
endforeach()
foreach(coll ${CM_COLLS})
  list(LENGTH CM_ALGOS_${coll} k)
  if(k EQUAL 0)
    message(FATAL_ERROR "algorithms.def: ${coll} has no point-to-point algorithm (its first is the fallback)")
  endif()
  if(k GREATER CM_COLL_ALGO_MAX)
    set(CM_COLL_ALGO_MAX ${k})
  endif()
  list(LENGTH CM_DIRECTS_${coll} k)
  if(k GREATER CM_COLL_DIRECT_MAX)
    set(CM_COLL_DIRECT_MAX ${k})
  endif()
endforeach()

# The list as "collective name kind" lines, and the tests that hold the
# built registry and the docs' tables against it (algorithms_check.cmake).
set(cm_expected "")
foreach(coll ${CM_COLLS})
  foreach(name ${CM_ALGOS_${coll}})
    string(APPEND cm_expected "${coll} ${name} algo\n")
  endforeach()
  foreach(name ${CM_DIRECTS_${coll}})
    string(APPEND cm_expected "${coll} ${name} direct\n")
  endforeach()
endforeach()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/algorithms.txt "${cm_expected}")
add_test(NAME coll.algorithms.registry
         COMMAND ${CMAKE_COMMAND} -DMODE=registry -DLISTER=$<TARGET_FILE:coll_algos>
                 -DEXPECTED=${CMAKE_CURRENT_BINARY_DIR}/algorithms.txt
                 -P ${CMAKE_CURRENT_LIST_DIR}/algorithms_check.cmake)
add_test(NAME coll.algorithms.docs
         COMMAND ${CMAKE_COMMAND} -DMODE=docs -DEXPECTED=${CMAKE_CURRENT_BINARY_DIR}/algorithms.txt
                 -DCOLL_DOC=${PROJECT_SOURCE_DIR}/docs/collectives.md -DSHM_DOC=${PROJECT_SOURCE_DIR}/docs/shm-coll.md
                 -P ${CMAKE_CURRENT_LIST_DIR}/algorithms_check.cmake)
add_test(NAME coll.algorithms.tuning
         COMMAND ${CMAKE_COMMAND} -DMODE=tuning -DEXPECTED=${CMAKE_CURRENT_BINARY_DIR}/algorithms.txt
                 -DTUNING=${PROJECT_SOURCE_DIR}/src/coll/tuning.def
                 -P ${CMAKE_CURRENT_LIST_DIR}/algorithms_check.cmake)
set_tests_properties(coll.algorithms.registry coll.algorithms.docs coll.algorithms.tuning PROPERTIES
  TIMEOUT 30 LABELS coll)

# Every COREMPI_<COLL>=name a test sets, as cm_coll_case records it.
set_property(GLOBAL PROPERTY CM_COLL_FORCED "")
function(cm_coll_note_forced)
  foreach(e ${ARGN})
    if(e MATCHES "^COREMPI_[A-Z_]+=[a-z0-9_]+$")
      set_property(GLOBAL APPEND PROPERTY CM_COLL_FORCED ${e})
    endif()
  endforeach()
endfunction()

# Each algorithm of the list must be forced by some coll_test case.
function(cm_coll_check_covered)
  get_property(forced GLOBAL PROPERTY CM_COLL_FORCED)
  set(missing "")
  foreach(coll ${CM_COLLS})
    foreach(name ${CM_ALGOS_${coll}} ${CM_DIRECTS_${coll}})
      if(NOT "${CM_COLL_ENV_${coll}}=${name}" IN_LIST forced)
        list(APPEND missing "${coll}:${name}")
      endif()
    endforeach()
  endforeach()
  if(missing)
    message(FATAL_ERROR "tests/coll: algorithms of src/coll/algorithms.def that no test forces: ${missing}")
  endif()
endfunction()
