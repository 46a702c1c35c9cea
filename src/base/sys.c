/*
 * sys.c — what the library asks of the system: how many processors run
 * the work it splits in two (heap packing, large HLO modules).
 */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include <unistd.h>

#include "base.h"

unsigned sys_processors(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 2 ? 2 : 1;
}
