/* The public header alone, compiled as strict C99 and as C++ (tests/CMakeLists.txt):
 * what a caller's build sees, with every warning an error. */
#include "vmemscope.h"

int main(void) {
  vmem_error err;
  vmem_target_count();
  return vmem_hlo_parse("", 0, NULL, &err) == NULL ? 0 : 1;
}
