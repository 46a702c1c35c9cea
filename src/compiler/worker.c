/*
 * worker.c — the child process that loads libtpu and compiles.
 *
 * Why a process of its own: libtpu keeps process-wide state (its flags,
 * threads, a lock file against two loads), may abort on a CHECK failure,
 * and a compile cannot be interrupted from inside. In a child, none of that
 * reaches the caller: a crash is a status, a compile past its deadline is
 * killed, and the caller's process never holds libtpu at all. The child
 * writes its results to a pipe as tagged messages (compiler.h, CW_*), and
 * ends with _exit: it returns into none of the caller's code.
 *
 * The order of calls is the PJRT C API's: GetPjrtApi, the version check,
 * PJRT_Plugin_Initialize, then PJRT_TopologyDescription_Create for a slice
 * named like "v5e:2x2" (no device needed), PJRT_Compile with no client
 * (ahead of time), PJRT_Executable_GetCompiledMemoryStats and
 * PJRT_Executable_OptimizedProgram.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "pjrt_abi.h"

static void write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      _exit(3); /* the parent is gone: nobody to tell */
    c += w;
    n -= (size_t)w;
  }
}

static void send(int fd, int tag, const void *a, size_t na, const void *b, size_t nb) {
  unsigned char head[9];
  uint64_t n = (uint64_t)na + nb;
  head[0] = (unsigned char)tag;
  for (int i = 0; i < 8; i++)
    head[1 + i] = (unsigned char)(n >> (8 * i));
  write_all(fd, head, sizeof head);
  if (na)
    write_all(fd, a, na);
  if (nb)
    write_all(fd, b, nb);
}

/* An error of `stage` ('l'oad, 'v'ersion, 'i'nit, 't'opology, 'c'ompile,
 * 's'tats, 'p'rogram), then the end: the child has nothing more to say. */
static _Noreturn void fail(int fd, int code, char stage, const char *msg, size_t len) {
  unsigned char head[5];
  for (int i = 0; i < 4; i++)
    head[i] = (unsigned char)((unsigned)code >> (8 * i));
  head[4] = (unsigned char)stage;
  send(fd, CW_ERROR, head, sizeof head, msg, len);
  send(fd, CW_DONE, NULL, 0, NULL, 0);
  _exit(0);
}

static _Noreturn void fail_pjrt(int fd, const pjrt_api *api, pjrt_error *e, char stage) {
  pjrt_error_message_args m = {.struct_size = sizeof m, .error = e};
  pjrt_error_getcode_args c = {.struct_size = sizeof c, .error = e};
  api->Error_Message(&m);
  if (api->Error_GetCode(&c))
    c.code = 2; /* UNKNOWN */
  fail(fd, c.code, stage, m.message ? m.message : "", m.message ? m.message_size : 0);
}

/* The plugin's attributes as "name=value" lines (strings and integers). */
static void send_version(int fd, const pjrt_api *api) {
  char text[2048];
  size_t len = 0;
  unsigned char head[8];
  pjrt_plugin_attributes_args aa = {.struct_size = sizeof aa};
  if (cp_api_has(api, Plugin_Attributes) && !api->Plugin_Attributes(&aa)) {
    for (size_t i = 0; i < aa.num_attributes && len < sizeof text - 200; i++) {
      const pjrt_named_value *v = &aa.attributes[i];
      int nn = (int)(v->name_size < 64 ? v->name_size : 64);
      if (v->type == PJRT_NV_STRING)
        len += (size_t)snprintf(text + len, sizeof text - len, "%.*s=%.*s\n", nn, v->name,
                                (int)(v->value_size < 64 ? v->value_size : 64), v->u.string_value);
      else if (v->type == PJRT_NV_INT64)
        len += (size_t)snprintf(text + len, sizeof text - len, "%.*s=%lld\n", nn, v->name, (long long)v->u.int64_value);
    }
  }
  for (int i = 0; i < 4; i++) {
    head[i] = (unsigned char)((unsigned)api->version.major >> (8 * i));
    head[4 + i] = (unsigned char)((unsigned)api->version.minor >> (8 * i));
  }
  send(fd, CW_VERSION, head, sizeof head, text, len < sizeof text ? len : sizeof text - 1);
}

/* Loads libtpu and checks its API; returns the table. */
static const pjrt_api *load(const char *path, int fd) {
  char msg[1024];
  /* A caller that holds libtpu already (JAX in the same process, set up
   * for a TPU) passed its copy to this child with the fork, initialised by
   * threads that do not exist here: using it crashes, and a second copy in
   * a namespace of its own (dlmopen) crashed too when tried. Say so. */
  if (dlopen(path, RTLD_NOW | RTLD_NOLOAD)) {
    int n = snprintf(msg, sizeof msg,
                     "%s is already loaded in this process (JAX set up its TPU backend here?): compile from a "
                     "process without it, e.g. with JAX_PLATFORMS=cpu set before jax is imported",
                     path);
    fail(fd, 0, 'v', msg, (size_t)n);
  }
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    fail(fd, 0, 'l', why ? why : "dlopen failed", why ? strlen(why) : 13);
  }
  pjrt_get_api_fn get;
  void *sym = dlsym(lib, "GetPjrtApi");
  memcpy(&get, &sym, sizeof get); /* ISO C has no cast from void * to a function pointer */
  if (!sym) {
    int n = snprintf(msg, sizeof msg, "%s exports no GetPjrtApi: it is not a PJRT plugin", path);
    fail(fd, 0, 'v', msg, (size_t)n);
  }
  const pjrt_api *api = get();
  if (!api || api->struct_size < offsetof(pjrt_api, Plugin_Attributes)) {
    int n = snprintf(msg, sizeof msg, "%s: GetPjrtApi returned no usable table", path);
    fail(fd, 0, 'v', msg, (size_t)n);
  }
  if (api->version.major != PJRT_ABI_MAJOR || !cp_api_has(api, Executable_GetCompiledMemoryStats)) {
    int n = snprintf(msg, sizeof msg,
                     "%s speaks PJRT C API %d.%d; vmemscope needs major version %d with "
                     "PJRT_Executable_GetCompiledMemoryStats (0.40 or later)",
                     path, api->version.major, api->version.minor, PJRT_ABI_MAJOR);
    fail(fd, 0, 'v', msg, (size_t)n);
  }
  pjrt_plugin_initialize_args ia = {.struct_size = sizeof ia};
  pjrt_error *e = api->Plugin_Initialize(&ia);
  if (e)
    fail_pjrt(fd, api, e, 'i');
  send_version(fd, api);
  return api;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void send_stats(int fd, const pjrt_api *api, pjrt_executable *exe) {
  pjrt_memory_stats_args ms = {.struct_size = sizeof ms, .executable = exe};
  pjrt_error *e = api->Executable_GetCompiledMemoryStats(&ms);
  if (e) {
    pjrt_error_destroy_args d = {.struct_size = sizeof d, .error = e};
    api->Error_Destroy(&d); /* a plugin without stats: the figures are missing, not wrong */
    return;
  }
  int64_t v[5] = {ms.generated_code_size_in_bytes, ms.argument_size_in_bytes, ms.output_size_in_bytes,
                  ms.alias_size_in_bytes, ms.temp_size_in_bytes};
  unsigned char b[40];
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 8; j++)
      b[8 * i + j] = (unsigned char)((uint64_t)v[i] >> (8 * j));
  send(fd, CW_STATS, b, sizeof b, NULL, 0);
}

static void send_program(int fd, const pjrt_api *api, pjrt_executable *exe) {
  pjrt_program prog = {.struct_size = sizeof prog};
  pjrt_optimized_program_args oa = {.struct_size = sizeof oa, .executable = exe, .program = &prog};
  pjrt_error *e = api->Executable_OptimizedProgram(&oa);
  if (e)
    fail_pjrt(fd, api, e, 'p');
  char *code = malloc(prog.code_size ? prog.code_size : 1);
  if (!code)
    fail(fd, 0, 'p', "out of memory for the compiled program", 38);
  prog.code = code;
  if ((e = api->Executable_OptimizedProgram(&oa)))
    fail_pjrt(fd, api, e, 'p');
  const char *format = prog.format ? prog.format : "";
  size_t flen = prog.format ? prog.format_size : 0;
  unsigned char *msg = malloc(flen + 1);
  if (!msg)
    fail(fd, 0, 'p', "out of memory for the compiled program", 38);
  memcpy(msg, format, flen);
  msg[flen] = 0;
  send(fd, CW_PROGRAM, msg, flen + 1, code, prog.code_size);
  free(msg);
  free(code);
}

static void compile(const cw_job *job, const pjrt_api *api, int fd) {
  pjrt_topology_create_args ta = {
      .struct_size = sizeof ta, .topology_name = job->topology, .topology_name_size = strlen(job->topology)};
  pjrt_error *e = api->TopologyDescription_Create(&ta);
  if (e)
    fail_pjrt(fd, api, e, 't');
  pjrt_program prog = {.struct_size = sizeof prog,
                       .code = (char *)(uintptr_t)job->module,
                       .code_size = job->module_len,
                       .format = "mlir",
                       .format_size = 4};
  pjrt_compile_args ca = {.struct_size = sizeof ca,
                          .topology = ta.topology,
                          .program = &prog,
                          .compile_options = (const char *)job->options,
                          .compile_options_size = job->options_len};
  double t0 = now();
  e = api->Compile(&ca);
  char secs[32];
  int n = snprintf(secs, sizeof secs, "%.3f", now() - t0);
  send(fd, CW_SECONDS, secs, (size_t)n, NULL, 0);
  if (e)
    fail_pjrt(fd, api, e, 'c');
  send_stats(fd, api, ca.executable);
  send_program(fd, api, ca.executable);
  /* Nothing is destroyed: the process ends now, and with it everything
   * libtpu made. */
}

_Noreturn void cw_main(const cw_job *job, int out_fd) {
  /* libtpu looks for a TPU VM's metadata server and its hosts unless told
   * it is on a plain host (the same settings as oracle/record.py); the
   * caller's own settings win. */
  setenv("TPU_SKIP_MDS_QUERY", "1", 0);
  setenv("TPU_ACCELERATOR_TYPE", "", 0);
  setenv("TPU_WORKER_HOSTNAMES", "localhost", 0);
  setenv("ALLOW_MULTIPLE_LIBTPU_LOAD", "1", 0);
  const pjrt_api *api = load(job->libtpu, out_fd);
  if (job->topology)
    compile(job, api, out_fd);
  send(out_fd, CW_DONE, NULL, 0, NULL, 0);
  _exit(0);
}
