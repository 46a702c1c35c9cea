/*
 * compiler.h — the real compiler's layer, internal interface (src/compiler/).
 *
 *   proto.c     protobuf's wire format: the few messages we write (compile
 *               options) and the one we read (the compiled HLO module)
 *   compiled.c  the compiled module: each tpu_custom_call's scoped memory
 *   worker.c    the child process: libtpu loaded, PJRT called, results sent
 *   compiler.c  the parent: finding libtpu, the child, its deadline, results
 *
 * Names carry the prefixes pb_ (wire format), cc_ (compiled module) and
 * cw_ (worker).
 */
#ifndef VMEM_COMPILER_H
#define VMEM_COMPILER_H

#include "../base/base.h"

/* ## Wire format (protobuf encoding; no schema: field numbers are given) */

/* A growing output buffer; `failed` after an allocation failed. */
typedef struct pb_out {
  const vmem_allocator *alloc; /* NULL: malloc */
  unsigned char *buf;
  size_t len, cap;
  bool failed;
} pb_out;

void pb_out_free(pb_out *o);
void pb_varint_field(pb_out *o, uint32_t field, uint64_t v);
void pb_bytes_field(pb_out *o, uint32_t field, const void *p, size_t n);
/* A length-delimited field whose content is another buffer's. */
void pb_message_field(pb_out *o, uint32_t field, const pb_out *inner);

/* One field read from a message: its number, wire type, and value (a
 * varint, or the bytes of a length-delimited field). */
typedef struct pb_field {
  uint32_t number;
  unsigned wire; /* 0 varint, 1 64-bit, 2 length-delimited, 5 32-bit */
  uint64_t varint;
  const unsigned char *bytes;
  size_t len;
} pb_field;

typedef struct pb_in {
  const unsigned char *p, *end;
  const unsigned char *start; /* for offsets in errors */
} pb_in;

void pb_in_init(pb_in *in, const void *p, size_t n);
/* The next field: 1, 0 at the end, -1 on malformed input (err says where). */
int pb_next(pb_in *in, pb_field *f, vmem_error *err);

/* ## Compile options: an xla.CompileOptionsProto for one device */
typedef struct cc_override {
  const char *name;
  int64_t value;
} cc_override;

bool cc_compile_options(pb_out *o, bool shardy, const cc_override *ov, size_t nov);

/* ## The compiled module */
typedef struct cc_call {
  const char *name;
  const char *computation;
  uint64_t scoped_bytes; /* used_scoped_memory_configs, VMEM (memory space 1) */
  size_t nconfigs;
  bool has_configs; /* backend_config named used_scoped_memory_configs */
  const char *body; /* custom_call_config.body, or "" */
} cc_call;

/* Every tpu_custom_call of a serialized HloModuleProto (format "hlo") or
 * HloModuleProtoWithConfig ("hlo_with_config"), in module order. Strings
 * and the array live in `a`. */
vmem_status cc_read_calls(const void *p, size_t n, bool with_config, arena *a, cc_call **out, size_t *count,
                          vmem_error *err);

/* ## The worker's messages, parent <- child: tag, 8-byte length, bytes */
enum {
  CW_VERSION = 'V', /* int32 major, int32 minor, then "name=value\n" attributes */
  CW_ERROR = 'E',   /* int32 PJRT code, one stage byte, the message */
  CW_STATS = 'S',   /* int64 x 5: code, argument, output, alias, temp */
  CW_PROGRAM = 'P', /* format, NUL, the optimized program */
  CW_SECONDS = 'T', /* the compile's seconds as text */
  CW_DONE = 'D'
};

/* What the child is asked to do. */
typedef struct cw_job {
  const char *libtpu;
  const char *topology; /* NULL: only load and check */
  const char *module;
  size_t module_len;
  const unsigned char *options;
  size_t options_len;
} cw_job;

/* Runs in the child: never returns. */
_Noreturn void cw_main(const cw_job *job, int out_fd);

#endif
