/*
 * hlo_config.c — what a TPU backend_config says about scoped memory,
 * decoded with jansson. TPU configs are JSON, printed raw
 * (backend_config={...}) or as a C-escaped string (backend_config="{...}").
 *
 *   scoped_memory_configs:      [{"memory_space": 1, "offset": 0, "size": N}]
 *   used_scoped_memory_configs: the same shape, what was used
 *   custom_call_config:         {"body": base64 Mosaic, "internal_scratch_in_bytes": N, ...}
 * Numbers may be JSON numbers or decimal strings ("16777216"), as
 * protobuf's JSON form prints int64.
 */
#define _POSIX_C_SOURCE 200809L /* pthreads: a large module's configs are decoded in two halves */
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"

/* A JSON integer or decimal string as int64; -1 when neither. */
int64_t hlo_json_i64(const json_t *v) {
  if (json_is_integer(v))
    return (int64_t)json_integer_value(v);
  if (json_is_string(v)) {
    const char *s = json_string_value(v);
    int64_t x = 0;
    if (!*s)
      return -1;
    for (; *s; s++) {
      if (!ch_is_digit(*s) || x > (INT64_MAX - 9) / 10)
        return -1;
      x = x * 10 + (*s - '0');
    }
    return x;
  }
  return -1;
}

/* The size of the memory-space-1 entry of a *_memory_configs list. */
int64_t hlo_vmem_config_size(const json_t *list) {
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e) {
    if (hlo_json_i64(json_object_get(e, "memory_space")) == 1)
      return hlo_json_i64(json_object_get(e, "size"));
  }
  return -1;
}

/* C-unescapes a quoted backend_config string (\" \\ \n \t \NNN \xNN). */
static char *unescape(sv v, const vmem_allocator *alloc, size_t *len) {
  char *out = vmem__alloc(alloc, v.len + 1);
  if (!out)
    return NULL;
  size_t n = 0;
  for (size_t i = 1; i + 1 < v.len; i++) {
    char c = v.ptr[i];
    if (c == '\\' && i + 2 < v.len) {
      c = v.ptr[++i];
      if (c == 'n')
        c = '\n';
      else if (c == 't')
        c = '\t';
      else if (c >= '0' && c <= '7') {
        int x = c - '0';
        for (int k = 0; k < 2 && i + 2 < v.len && v.ptr[i + 1] >= '0' && v.ptr[i + 1] <= '7'; k++)
          x = x * 8 + (v.ptr[++i] - '0');
        c = (char)x;
      }
    }
    out[n++] = c;
  }
  out[n] = '\0';
  *len = n;
  return out;
}

static bool mentions(const char *text, size_t len, const char *word) {
  size_t n = strlen(word);
  for (size_t i = 0; i + n <= len; i++)
    if (text[i] == word[0] && memcmp(text + i, word, n) == 0)
      return true;
  return false;
}

static void decode(const json_t *root, vmem_hlo_scoped *out) {
  out->config_is_json = true;
  json_t *l = json_object_get(root, "scoped_memory_configs");
  if (l)
    out->limit_bytes = hlo_vmem_config_size(l);
  l = json_object_get(root, "used_scoped_memory_configs");
  if (l)
    out->used_bytes = hlo_vmem_config_size(l);
  json_t *ccc = json_object_get(root, "custom_call_config");
  if (ccc) {
    out->has_kernel_body = json_object_get(ccc, "body") != NULL;
    json_t *is = json_object_get(ccc, "internal_scratch_in_bytes");
    if (is)
      out->internal_scratch_bytes = hlo_json_i64(is);
  }
}

json_t *hlo_config_json(const vmem_hlo_instruction *i, vmem_error *err) {
  err_clear(err);
  sv v = vmem_hlo_instruction_attr(i, "backend_config");
  if (v.len == 0)
    return NULL;
  const vmem_hlo_module *m = i->parent->module;
  const vmem_allocator *alloc = &m->a.alloc;
  size_t at = (size_t)(v.ptr - m->text);
  char *buf = NULL;
  const char *text = v.ptr;
  size_t len = v.len;
  if (v.ptr[0] == '"') {
    if (!(buf = unescape(v, alloc, &len))) {
      err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
      return NULL;
    }
    text = buf;
  }
  if (len == 0 || text[0] != '{') { /* not JSON: some other backend's config */
    vmem__free(alloc, buf);
    return NULL;
  }
  json_error_t je;
  json_t *root = json_loadb(text, len, JSON_DISABLE_EOF_CHECK, &je);
  bool must_be_json = sv_eq(vmem_hlo_instruction_custom_call_target(i), "tpu_custom_call", 15) ||
                      mentions(text, len, "scoped_memory_configs") || mentions(text, len, "custom_call_config");
  vmem__free(alloc, buf);
  if (!root && must_be_json) {
    /* In a raw config jansson's position is a byte in the text; in a
     * quoted one it is in the unescaped copy, so point at the value. */
    size_t pos = buf ? at : at + (size_t)je.position;
    err_set(err, VMEM_ERR_SYNTAX, pos, "backend_config is not valid JSON: %s", je.text);
  }
  return root; /* NULL for another backend's config (e.g. typed-FFI attributes) */
}

vmem_status vmem_hlo_instruction_scoped(const vmem_hlo_instruction *i, vmem_hlo_scoped *out, vmem_error *err) {
  if (!i || !out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "an instruction and a result are needed");
    return VMEM_ERR_ARGUMENT;
  }
  out->limit_bytes = out->used_bytes = out->internal_scratch_bytes = -1;
  out->has_kernel_body = out->config_is_json = false;
  json_t *root = hlo_config_json(i, err);
  if (!root)
    return err->code;
  decode(root, out);
  json_decref(root);
  return VMEM_OK;
}

/* ---- every config of a module ------------------------------------------
 * A large dump has a config on most fusions (50,000 in bench_hlo's 100 MB
 * module), and jansson takes 5-9 us for each: the configs are decoded in
 * two halves of instruction order on two threads. Each config is decoded
 * alone (jansson keeps no shared state but its hash seed, which it sets
 * once, thread-safely), so the halves give what one pass gives; the first
 * half's error comes before any of the second's. */
enum { SCOPED_HALVES_MIN = 256 }; /* configs: below, a thread costs more than it saves */

typedef struct scoped_run {
  const vmem_hlo_instruction *const *v;
  size_t from, to;
  vmem_hlo_scoped *out;
  vmem_error err;
} scoped_run;

static void *scoped_decode(void *arg) {
  scoped_run *r = arg;
  err_clear(&r->err);
  for (size_t i = r->from; i < r->to; i++)
    if (vmem_hlo_instruction_scoped(r->v[i], &r->out[r->v[i]->id], &r->err) != VMEM_OK)
      break;
  return NULL;
}

vmem_status hlo_scoped_all(const vmem_hlo_module *m, vmem_hlo_scoped *out, size_t split_from, vmem_error *err) {
  err_clear(err);
  const vmem_hlo_scoped none = {-1, -1, -1, false, false};
  const vmem_hlo_instruction **v = vmem__alloc(&m->a.alloc, (m->total_instrs ? m->total_instrs : 1) * sizeof *v);
  if (!v) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  size_t n = 0;
  for (uint32_t c = 0; c < m->ncomps; c++)
    for (uint32_t i = 0; i < m->comps[c]->ninstrs; i++) {
      const vmem_hlo_instruction *in = m->comps[c]->instrs[i];
      out[in->id] = none;
      if (vmem_hlo_instruction_attr(in, "backend_config").len)
        v[n++] = in;
    }
  scoped_run half[2] = {{v, 0, n, out, {0}}, {v, n, n, out, {0}}};
  pthread_t th;
  bool two = n >= split_from && n >= 2;
  if (two) {
    half[0].to = half[1].from = n / 2;
    two = pthread_create(&th, NULL, scoped_decode, &half[1]) == 0;
    if (!two) /* no thread: one pass */
      half[0].to = half[1].from = n;
  }
  scoped_decode(&half[0]);
  if (two)
    pthread_join(th, NULL);
  vmem__free(&m->a.alloc, v);
  *err = half[0].err.code != VMEM_OK ? half[0].err : half[1].err;
  return err->code;
}

vmem_status vmem_hlo_module_scoped(const vmem_hlo_module *m, vmem_hlo_scoped *out, vmem_error *err) {
  if (!m || !out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a module and an array for its instructions are needed");
    return VMEM_ERR_ARGUMENT;
  }
  const vmem_allocator *a = &m->a.alloc; /* a caller's allocator stays on the calling thread */
  bool two = !a->alloc && !a->free && !m->one_thread && sys_processors() >= 2;
  return hlo_scoped_all(m, out, two ? SCOPED_HALVES_MIN : SIZE_MAX, err);
}
