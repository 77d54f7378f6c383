/* mpi.h for abi.values_selftest: the standard's definitions (abi_ref.h)
 * in place of corempi's header, so abi_values.c is shown to pass on a
 * conforming header and WILL_FAIL on abi.values cannot hide a broken test. */
#include "abi_ref.h"
