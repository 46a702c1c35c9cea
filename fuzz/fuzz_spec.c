/* libFuzzer target for the JSON kernel spec reader (checks in fuzz_kernel.h). */
#include "fuzz_kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_kernel(vmem_kernel_from_spec, data, size); }
