/* libFuzzer target for the reader of the compiler's answer (src/compiler/
 * compiled.c): the bytes are a serialized HloModuleProto, wrapped or not,
 * as PJRT_Executable_OptimizedProgram hands it back. Every input is a
 * module or an error with a message; the reader never reads outside the
 * input (ASan), never leaks, and the calls it returns are well-formed. */
#include <stdlib.h>
#include <string.h>

#include "../src/compiler/compiler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  for (int wrapped = 0; wrapped < 2; wrapped++) {
    arena a;
    arena_init(&a, NULL);
    cc_call *calls;
    size_t n;
    vmem_error err;
    vmem_status st = cc_read_calls(data, size, wrapped, &a, &calls, &n, &err);
    if (st != VMEM_OK && err.message[0] == '\0')
      abort(); /* an error always says what */
    for (size_t i = 0; st == VMEM_OK && i < n; i++)
      if (!calls[i].name || !calls[i].computation || !calls[i].body || (calls[i].scoped_bytes && !calls[i].nconfigs))
        abort();
    arena_destroy(&a);
  }
  return 0;
}
