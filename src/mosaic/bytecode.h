/*
 * bytecode.h — the container layer of MLIR bytecode ("ML\xefR"), as Mosaic
 * kernels travel inside tpu_custom_call backend configs: base64, the
 * primitive encodings, the section framing, and the tables the IR refers
 * to by index (strings, dialects, op names, attribute and type entries).
 * Decoding the entries themselves and walking the IR build on this.
 * Format facts: ../shared/reference/mlir_bytecode.md §1-§5.
 */
#ifndef VMEM_MOSAIC_BYTECODE_H
#define VMEM_MOSAIC_BYTECODE_H

#include "../base/base.h"

/* Section ids (low 7 bits of the section's first byte). */
typedef enum bc_section_id {
  BC_STRING,
  BC_DIALECT,
  BC_ATTR_TYPE,
  BC_ATTR_TYPE_OFFSET,
  BC_IR,
  BC_RESOURCE,
  BC_RESOURCE_OFFSET,
  BC_DIALECT_VERSIONS,
  BC_PROPERTIES,
  BC_NUM_SECTIONS
} bc_section_id;

enum { BC_MAX_VERSION = 6 }; /* the newest version whose layout is known */

/* A bounds-checked cursor over [base + pos, base + end); offsets in errors
 * are absolute (from the start of the bytecode). */
typedef struct bc_cursor {
  const uint8_t *base;
  size_t pos, end;
  vmem_error *err;
} bc_cursor;

typedef struct bc_section {
  bool present;
  size_t start, len; /* absolute offset of the data, its length */
} bc_section;

typedef struct bc_op_name {
  uint32_t dialect; /* index into dialects */
  uint32_t name;    /* string index: the name without the dialect prefix */
  bool registered;  /* known from v5 on; true before */
} bc_op_name;

/* An attribute or type entry: a slice of the AttrType section, decoded by
 * its dialect when custom, else the entry's textual assembly + NUL. */
typedef struct bc_entry {
  size_t start, len;
  uint32_t dialect;
  bool custom;
} bc_entry;

typedef struct bc_file {
  const uint8_t *buf;
  size_t len;
  uint64_t version;
  vmem_str producer;
  bc_section sections[BC_NUM_SECTIONS];
  size_t nstrings;
  vmem_str *strings;
  size_t ndialects;
  uint32_t *dialects; /* string index of each dialect's name */
  size_t nops;
  bc_op_name *ops;
  size_t nattrs, ntypes;
  bc_entry *entries; /* nattrs attributes, then ntypes types */
} bc_file;

/* Primitives (reference §1). Each fails with a positioned error. */
bool bc_varint(bc_cursor *c, uint64_t *out);
bool bc_signed_varint(bc_cursor *c, int64_t *out);
bool bc_varint_flag(bc_cursor *c, uint64_t *value, bool *flag);

/* A count of items of at least min_bytes each, checked against the bytes
 * left; and a section header with its alignment padding. */
bool bc_count(bc_cursor *c, size_t min_bytes, uint64_t *out);
bool bc_section_at(bc_cursor *c, unsigned *id, bc_section *out);

/* Reads the container: header, sections, and the string, dialect and
 * attribute/type offset tables. Tables live in `a`. */
vmem_status bc_read(arena *a, const uint8_t *buf, size_t len, bc_file *out, vmem_error *err);

/* The textual assembly of a non-custom entry (without its NUL), or an
 * empty view for a custom one. */
vmem_str bc_entry_text(const bc_file *f, const bc_entry *e);

/* The module as MLIR text (bc_print.c): builtin attributes and types
 * decoded, textual entries verbatim, ops in generic form except the few a
 * reader looks for (module, func.func, arith.constant, return, stores),
 * which take their custom form; the serde's "stable_mosaic." op prefix is
 * dropped. The text is NUL-terminated and lives in `a`. */
vmem_status bc_print(arena *a, const bc_file *f, vmem_str *text, vmem_error *err);

/* Standard base64 (RFC 4648, '=' padding, no line breaks) into out, which
 * holds at least len / 4 * 3 bytes. Returns the bytes written, or SIZE_MAX
 * with *bad set to the offset of the first invalid character. */
size_t bc_base64_decode(const char *in, size_t len, uint8_t *out, size_t *bad);

#endif
