/* api_size.c — the library from C: size a shape on a target, then resolve
 * the scoped limit a kernel would get. Built by CMake as `example_api_size`.
 *
 *   cc api_size.c $(pkg-config --cflags --libs vmemscope) -o api_size
 */
#include <stdio.h>
#include <string.h>

#include "vmemscope.h"

int main(int argc, char **argv) {
  const char *text = argc > 1 ? argv[1] : "bf16[129,1024]";
  const vmem_target *t = vmem_target_find("v6e", 3);
  vmem_error err;

  vmem_shape *s = vmem_shape_parse(text, strlen(text), NULL, &err);
  if (!s) {
    fprintf(stderr, "column %zu: %s\n", err.offset + 1, err.message);
    return 2;
  }
  vmem_shape *laid = vmem_shape_with_tpu_layout(s, t, NULL, &err);
  vmem_size z;
  if (!laid || vmem_shape_size(laid, &z, &err) != VMEM_OK) {
    fprintf(stderr, "%s\n", err.message);
    vmem_shape_free(s);
    vmem_shape_free(laid);
    return 2;
  }
  char shape[256], human[32];
  vmem_shape_print(laid, shape, sizeof shape);
  vmem_format_bytes((int64_t)z.bytes, human, sizeof human);
  printf("%s: %llu bytes (%s), %llu unpadded\n", shape, (unsigned long long)z.bytes, human,
         (unsigned long long)z.unpadded_bytes);

  vmem_limit_inputs in = {.flags = "--xla_tpu_scoped_vmem_limit_kib=65536", .vmem_limit_bytes = -1};
  vmem_limits l;
  if (vmem_limits_resolve(t, &in, &l, &err) == VMEM_OK)
    printf("scoped limit on %s: %llu bytes (%s)\n", vmem_target_name(t), (unsigned long long)l.effective_bytes,
           vmem_limit_origin_name(l.origin));
  vmem_shape_free(laid);
  vmem_shape_free(s);
  return 0;
}
