/*
 * proto.c — protobuf's wire format, by field number: enough to write an
 * xla.CompileOptionsProto and to walk a compiled xla.HloModuleProto.
 *
 * Why not libprotobuf-c: it works from code generated out of the .proto
 * files, and XLA's (hlo.proto, xla.proto, compile_options.proto) are not
 * packaged anywhere vmemscope may build from. The encoding itself is small
 * and fixed (protobuf.dev "Encoding"): a key varint (field << 3 | wire
 * type), then a varint, 8 or 4 bytes, or a length and that many bytes.
 */
#include <string.h>

#include "compiler.h"

/* ## Writing */

static bool out_reserve(pb_out *o, size_t more) {
  if (o->failed)
    return false;
  if (more <= o->cap - o->len)
    return true;
  size_t cap = o->cap ? o->cap : 256;
  while (cap - o->len < more) {
    if (cap > SIZE_MAX / 2) {
      o->failed = true;
      return false;
    }
    cap *= 2;
  }
  unsigned char *b = vmem__alloc(o->alloc, cap);
  if (!b) {
    o->failed = true;
    return false;
  }
  if (o->len)
    memcpy(b, o->buf, o->len);
  vmem__free(o->alloc, o->buf);
  o->buf = b;
  o->cap = cap;
  return true;
}

void pb_out_free(pb_out *o) {
  const vmem_allocator *alloc = o->alloc;
  vmem__free(alloc, o->buf);
  memset(o, 0, sizeof *o);
  o->alloc = alloc;
}

static void put_varint(pb_out *o, uint64_t v) {
  if (!out_reserve(o, 10))
    return;
  while (v >= 0x80) {
    o->buf[o->len++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  o->buf[o->len++] = (unsigned char)v;
}

void pb_varint_field(pb_out *o, uint32_t field, uint64_t v) {
  put_varint(o, (uint64_t)field << 3);
  put_varint(o, v);
}

void pb_bytes_field(pb_out *o, uint32_t field, const void *p, size_t n) {
  put_varint(o, (uint64_t)field << 3 | 2);
  put_varint(o, n);
  if (n && out_reserve(o, n)) {
    memcpy(o->buf + o->len, p, n);
    o->len += n;
  }
}

void pb_message_field(pb_out *o, uint32_t field, const pb_out *inner) {
  if (inner->failed)
    o->failed = true;
  else
    pb_bytes_field(o, field, inner->buf, inner->len);
}

/* ## Reading */

void pb_in_init(pb_in *in, const void *p, size_t n) {
  in->start = in->p = p;
  in->end = in->p + n;
}

static bool get_varint(pb_in *in, uint64_t *v) {
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (in->p >= in->end)
      return false;
    unsigned c = *in->p++;
    r |= (uint64_t)(c & 0x7f) << shift;
    if (c < 0x80) {
      *v = r;
      return true;
    }
  }
  return false; /* more than ten bytes */
}

int pb_next(pb_in *in, pb_field *f, vmem_error *err) {
  if (in->p >= in->end)
    return 0;
  size_t at = (size_t)(in->p - in->start);
  uint64_t key;
  if (!get_varint(in, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
    goto bad;
  memset(f, 0, sizeof *f);
  f->number = (uint32_t)(key >> 3);
  f->wire = (unsigned)(key & 7);
  switch (f->wire) {
  case 0:
    if (!get_varint(in, &f->varint))
      goto bad;
    return 1;
  case 1:
  case 5: {
    size_t n = f->wire == 1 ? 8 : 4;
    if ((size_t)(in->end - in->p) < n)
      goto bad;
    f->bytes = in->p;
    f->len = n;
    in->p += n;
    return 1;
  }
  case 2: {
    uint64_t n;
    if (!get_varint(in, &n) || n > (uint64_t)(in->end - in->p))
      goto bad;
    f->bytes = in->p;
    f->len = (size_t)n;
    in->p += n;
    return 1;
  }
  default: /* groups (3, 4) are not used by the messages we read */
    break;
  }
bad:
  err_set(err, VMEM_ERR_SYNTAX, at, "malformed protobuf field at byte %zu", at);
  return -1;
}

/* ## The compile options
 *
 * xla.CompileOptionsProto (xla/pjrt/proto/compile_options.proto):
 *   3 executable_build_options: ExecutableBuildOptionsProto
 *       4 num_replicas, 5 num_partitions, 6 use_spmd_partitioning,
 *       9 device_assignment,
 *       19 use_shardy_partitioner
 *   7 env_option_overrides: map<string, OptionOverrideProto>
 *       (an entry: 1 key, 2 value; the value's 3 is int_field)
 * xla.DeviceAssignmentProto: 1 replica_count, 2 computation_count,
 *   3 computation_devices { 1 replica_device_ids }.
 * One replica, one partition, on device 0: what jax.jit lowers a kernel for
 * on a one-device mesh, as the oracle's records were compiled. */
bool cc_compile_options(pb_out *o, bool shardy, const cc_override *ov, size_t nov) {
  pb_out device = {.alloc = o->alloc}, assignment = {.alloc = o->alloc}, build = {.alloc = o->alloc};
  pb_varint_field(&device, 1, 0);
  pb_varint_field(&assignment, 1, 1);
  pb_varint_field(&assignment, 2, 1);
  pb_message_field(&assignment, 3, &device);
  pb_varint_field(&build, 4, 1);
  pb_varint_field(&build, 5, 1);
  pb_varint_field(&build, 6, 1); /* use_spmd_partitioning, as jax.jit compiles */
  pb_message_field(&build, 9, &assignment);
  if (shardy)
    pb_varint_field(&build, 19, 1);
  pb_message_field(o, 3, &build);
  for (size_t i = 0; i < nov; i++) {
    pb_out value = {.alloc = o->alloc}, entry = {.alloc = o->alloc};
    pb_varint_field(&value, 3, (uint64_t)ov[i].value);
    pb_bytes_field(&entry, 1, ov[i].name, strlen(ov[i].name));
    pb_message_field(&entry, 2, &value);
    pb_message_field(o, 7, &entry);
    pb_out_free(&value);
    pb_out_free(&entry);
  }
  pb_out_free(&device);
  pb_out_free(&assignment);
  pb_out_free(&build);
  return !o->failed;
}
