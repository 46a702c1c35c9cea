/*
 * fake_pjrt.c — a stand-in libtpu for the compiler layer's tests: a shared
 * module exporting GetPjrtApi whose behaviour FAKE_PJRT_MODE picks, so that
 * every path of src/compiler/ (a compile that succeeds, is refused, runs out
 * of VMEM, never ends, aborts, answers garbage, or an API of another
 * version) runs in CI with no real libtpu and under the sanitizers.
 *
 * The "compiled module" it answers is a hand-encoded HloModuleProto with
 * one tpu_custom_call whose backend_config names 12288 bytes of scoped VMEM
 * and the body "QUJD".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/compiler/pjrt_abi.h"

struct pjrt_error {
  int code;
  const char *msg;
};
static pjrt_error refused = {3, "INVALID_ARGUMENT: the fake compiler takes no module"};
static pjrt_error e1001 = {8, "RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on "
                              "stack for %kernel = custom-call(...). Scoped allocation with size 20.00M and "
                              "limit 16.00M exceeded scoped vmem limit by 4.00M. (E1001)"};
static int token;

static const char *mode(void) {
  const char *m = getenv("FAKE_PJRT_MODE");
  return m ? m : "ok";
}

static void error_destroy(pjrt_error_destroy_args *a) { (void)a; }
static void error_message(pjrt_error_message_args *a) {
  a->message = a->error->msg;
  a->message_size = strlen(a->error->msg);
}
static pjrt_error *error_code(pjrt_error_getcode_args *a) {
  a->code = a->error->code;
  return NULL;
}
static pjrt_error *initialize(pjrt_plugin_initialize_args *a) {
  (void)a;
  return NULL;
}
static pjrt_error *attributes(pjrt_plugin_attributes_args *a) {
  static const pjrt_named_value v = {.struct_size = sizeof v,
                                     .name = "xla_version",
                                     .name_size = 11,
                                     .type = PJRT_NV_INT64,
                                     .u.int64_value = 2,
                                     .value_size = 1};
  a->attributes = &v;
  a->num_attributes = 1;
  return NULL;
}
static pjrt_error *topology_create(pjrt_topology_create_args *a) {
  a->topology = (pjrt_topology *)&token;
  return NULL;
}
static pjrt_error *topology_destroy(pjrt_topology_destroy_args *a) {
  (void)a;
  return NULL;
}

static pjrt_error *compile(pjrt_compile_args *a) {
  const char *m = mode();
  if (!strcmp(m, "refuse"))
    return &refused;
  if (!strcmp(m, "e1001"))
    return &e1001;
  if (!strcmp(m, "sleep"))
    sleep(60);
  if (!strcmp(m, "abort")) {
    fprintf(stderr, "I1207 00:00:00.000000 1 fake.cc:1] starting\n");
    fprintf(stderr, "F1207 00:00:00.000000 1 fake.cc:2] Check failed: the fake compiler aborts\n");
    abort();
  }
  a->executable = (pjrt_executable *)&token;
  return NULL;
}
static pjrt_error *executable_destroy(pjrt_executable_destroy_args *a) {
  (void)a;
  return NULL;
}

/* ## The compiled module, encoded by hand */
static size_t put(unsigned char *o, size_t at, const void *p, size_t n) {
  memcpy(o + at, p, n);
  return at + n;
}
static size_t put_varint(unsigned char *o, size_t at, size_t v) {
  while (v >= 0x80) {
    o[at++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  o[at++] = (unsigned char)v;
  return at;
}
static size_t put_bytes(unsigned char *o, size_t at, unsigned field, const void *p, size_t n) {
  at = put_varint(o, at, field << 3 | 2);
  at = put_varint(o, at, n);
  return put(o, at, p, n);
}
static size_t module(unsigned char *o) {
  static const char config[] = "{\"custom_call_config\":{\"body\":\"QUJD\"},\"used_scoped_memory_configs\":"
                               "[{\"memory_space\":\"1\",\"offset\":\"0\",\"size\":\"12288\"}]}";
  unsigned char ins[512], comp[640], mod[768];
  size_t n = put_bytes(ins, 0, 1, "kern.1", 6);
  n = put_bytes(ins, n, 2, "custom-call", 11);
  n = put_bytes(ins, n, 28, "tpu_custom_call", 15);
  n = put_bytes(ins, n, 43, config, sizeof config - 1);
  size_t c = put_bytes(comp, 0, 1, "main", 4);
  c = put_bytes(comp, c, 2, ins, n);
  size_t m = put_bytes(mod, 0, 3, comp, c);
  return put_bytes(o, 0, 1, mod, m); /* HloModuleProtoWithConfig.hlo_module */
}

static pjrt_error *optimized(pjrt_optimized_program_args *a) {
  unsigned char buf[1024];
  size_t n = module(buf);
  if (!strcmp(mode(), "garbage")) {
    static const unsigned char bad[] = {0x0a, 0x7f, 0x1a};
    n = sizeof bad;
    memcpy(buf, bad, n);
  }
  a->program->format = "hlo_with_config";
  a->program->format_size = 15;
  if (a->program->code)
    memcpy(a->program->code, buf, n);
  a->program->code_size = n;
  return NULL;
}
static pjrt_error *stats(pjrt_memory_stats_args *a) {
  a->generated_code_size_in_bytes = 4096;
  a->argument_size_in_bytes = 1 << 20;
  a->output_size_in_bytes = 1 << 20;
  return NULL;
}

static pjrt_api api = {
    .struct_size = sizeof api,
    .version = {.struct_size = sizeof api.version, .major = 0, .minor = 112},
    .Error_Destroy = error_destroy,
    .Error_Message = error_message,
    .Error_GetCode = error_code,
    .Plugin_Initialize = initialize,
    .Plugin_Attributes = attributes,
    .Executable_Destroy = executable_destroy,
    .Executable_OptimizedProgram = optimized,
    .TopologyDescription_Create = topology_create,
    .TopologyDescription_Destroy = topology_destroy,
    .Compile = compile,
    .Executable_GetCompiledMemoryStats = stats,
};

const pjrt_api *GetPjrtApi(void);
const pjrt_api *GetPjrtApi(void) {
  if (!strcmp(mode(), "old-api")) {
    api.version.major = 1;
    api.version.minor = 3;
  }
  return &api;
}
