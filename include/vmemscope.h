/*
 * vmemscope.h — the one public header of libvmemscope.
 *
 * vmemscope does the TPU compiler's VMEM accounting offline: exact byte sizes
 * of TPU-tiled arrays, the TPU generation table, the scoped-VMEM limit in
 * force, HLO modules and their program-scoped planner, Pallas kernels
 * (Mosaic MLIR, bytecode, JSON specs) with their footprints, verdicts and
 * remedies, block-size templates, and compiler logs explained.
 *
 * Conventions
 *   - Every public name starts with vmem_ / VMEM_.
 *   - Handles are opaque; each *_free releases everything the handle owns.
 *     Result structs (vmem_footprint, vmem_program) keep a copy of the
 *     allocator they were made with, so they may be freed after the kernel
 *     or module that made them.
 *   - The library never exits, aborts, prints, or keeps global mutable state.
 *     Tables (element types, targets, opcodes) are immutable static data.
 *     The one part that prints is the command line as a call (vmem_cli_run,
 *     at the end of this header): it writes to the streams it is given,
 *     reads the environment as the program does, and keeps its per-call
 *     state in a thread-local slot while it runs.
 *   - Threads: large inputs are split between two threads where two
 *     processors are online (an HLO parse, its configs, a heap packing);
 *     the same results as one thread. vmem_parse_options.threads and
 *     vmem_heap_options.threads = 1 keep all work on the calling thread; a
 *     caller's allocator is only ever called from the calling thread.
 *   - Functions that can fail return a vmem_status and fill a vmem_error
 *     (code, message, byte offset into the input they were given).
 *   - Memory comes from the caller's vmem_allocator, or malloc/free when the
 *     allocator pointer is NULL.
 *   - Every size is in bytes, computed with overflow checks.
 *   - The NULL rule: a NULL handle, result or error pointer never crashes. A
 *     function that returns a vmem_status returns VMEM_ERR_ARGUMENT for a
 *     missing handle or result (the error is filled when one is given); an
 *     accessor given a NULL handle returns 0, false, NULL or an empty
 *     vmem_str. tests/gen_null_contract.py holds every function declared here
 *     to it.
 */
#ifndef VMEMSCOPE_H
#define VMEMSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VMEM_BUILDING_SHARED) && defined(__GNUC__)
#define VMEM_API __attribute__((visibility("default")))
#else
#define VMEM_API
#endif

/* ## Version
 * Written here alone: CMake's project(VERSION) and the Python package's
 * version are read from these three lines. */

#define VMEM_VERSION_MAJOR 0
#define VMEM_VERSION_MINOR 1
#define VMEM_VERSION_PATCH 0
#define VMEM_VERSION_STR_(x) #x
#define VMEM_VERSION_XSTR_(x) VMEM_VERSION_STR_(x)
#define VMEM_VERSION_STRING              \
  VMEM_VERSION_XSTR_(VMEM_VERSION_MAJOR) \
  "." VMEM_VERSION_XSTR_(VMEM_VERSION_MINOR) "." VMEM_VERSION_XSTR_(VMEM_VERSION_PATCH)

/** The library's version string, e.g. "0.1.0". */
VMEM_API const char *vmem_version(void);

/* ## Allocation */

/** A caller's allocator. `alloc` returns NULL on failure; `free` accepts
 *  NULL. `ctx` is passed through untouched. */
typedef struct vmem_allocator {
  void *(*alloc)(void *ctx, size_t size);
  void (*free)(void *ctx, void *ptr);
  void *ctx;
} vmem_allocator;

/* ## Errors */

typedef enum vmem_status {
  VMEM_OK = 0,
  VMEM_ERR_SYNTAX,      /* the text does not follow the grammar */
  VMEM_ERR_OVERFLOW,    /* a size or count does not fit in 64 bits */
  VMEM_ERR_UNKNOWN,     /* an unknown name: type, target, field */
  VMEM_ERR_RANGE,       /* a value outside what the model accepts */
  VMEM_ERR_UNSUPPORTED, /* valid input the model cannot size */
  VMEM_ERR_NOMEM,       /* the allocator returned NULL */
  VMEM_ERR_ARGUMENT,    /* a NULL or inconsistent argument */
  VMEM_ERR_INTERNAL     /* a plan failed its own check (vmem_program_check, vmem_footprint_check): a bug */
} vmem_status;

/** An error value. `offset` is a byte offset into the text the failing call
 *  was given (0 when the error has no position). */
typedef struct vmem_error {
  vmem_status code;
  size_t offset;
  char message[240];
} vmem_error;

/** A short stable name for a status ("syntax", "overflow", ...). */
VMEM_API const char *vmem_status_name(vmem_status status);

/** Converts a byte offset into a 1-based line and column of `text`. */
VMEM_API void vmem_locate(const char *text, size_t len, size_t offset, size_t *line, size_t *column);

/* ## Element types
 *
 * Declared once in this table: enum tag, XLA name, storage bits (the bits an
 * element takes in an unpacked array, XLA's BitWidth), and class.
 */
#define VMEM_DTYPE_TABLE(X)                   \
  X(PRED, "pred", 1, BOOL)                    \
  X(S2, "s2", 2, INT)                         \
  X(S4, "s4", 4, INT)                         \
  X(S8, "s8", 8, INT)                         \
  X(S16, "s16", 16, INT)                      \
  X(S32, "s32", 32, INT)                      \
  X(S64, "s64", 64, INT)                      \
  X(U2, "u2", 2, UINT)                        \
  X(U4, "u4", 4, UINT)                        \
  X(U8, "u8", 8, UINT)                        \
  X(U16, "u16", 16, UINT)                     \
  X(U32, "u32", 32, UINT)                     \
  X(U64, "u64", 64, UINT)                     \
  X(F4E2M1FN, "f4e2m1fn", 4, FLOAT)           \
  X(F8E3M4, "f8e3m4", 8, FLOAT)               \
  X(F8E4M3, "f8e4m3", 8, FLOAT)               \
  X(F8E4M3FN, "f8e4m3fn", 8, FLOAT)           \
  X(F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, FLOAT) \
  X(F8E4M3FNUZ, "f8e4m3fnuz", 8, FLOAT)       \
  X(F8E5M2, "f8e5m2", 8, FLOAT)               \
  X(F8E5M2FNUZ, "f8e5m2fnuz", 8, FLOAT)       \
  X(F8E8M0FNU, "f8e8m0fnu", 8, FLOAT)         \
  X(BF16, "bf16", 16, FLOAT)                  \
  X(F16, "f16", 16, FLOAT)                    \
  X(F32, "f32", 32, FLOAT)                    \
  X(F64, "f64", 64, FLOAT)                    \
  X(C64, "c64", 64, COMPLEX)                  \
  X(C128, "c128", 128, COMPLEX)               \
  X(TOKEN, "token", 0, OTHER)                 \
  X(OPAQUE, "opaque", 0, OTHER)

typedef enum vmem_dtype {
#define VMEM_X_ENUM(tag, name, bits, cls) VMEM_##tag,
  VMEM_DTYPE_TABLE(VMEM_X_ENUM)
#undef VMEM_X_ENUM
      VMEM_DTYPE_COUNT
} vmem_dtype;

/** The XLA spelling ("bf16"). */
VMEM_API const char *vmem_dtype_name(vmem_dtype t);
/** Bits per element as XLA's BitWidth (pred 1, s4 4, c64 64, token 0). */
VMEM_API int vmem_dtype_bits(vmem_dtype t);
/** Bytes per element unpacked: ceil(bits/8) (pred 1, s4 1, token 0). */
VMEM_API int vmem_dtype_bytes(vmem_dtype t);
/** Looks a name up exactly (case-sensitive, as XLA). */
VMEM_API bool vmem_dtype_from_name(const char *name, size_t len, vmem_dtype *out);

/* ## Targets: TPU generations
 *
 * The table is immutable and embedded. Each value is a vmem_fact that names
 * its source and whether it is documented, observed in compiler output, or
 * derived by vmemscope.
 */
typedef struct vmem_target vmem_target;

typedef enum vmem_fact_id {
  VMEM_FACT_VMEM_BYTES,             /* physical VMEM per TensorCore */
  VMEM_FACT_SMEM_BYTES,             /* SMEM per TensorCore */
  VMEM_FACT_SCOPED_DEFAULT_BYTES,   /* default scoped VMEM limit */
  VMEM_FACT_INTERNAL_SCRATCH_BYTES, /* Mosaic internal scratch default */
  VMEM_FACT_HBM_BYTES,              /* HBM per chip */
  VMEM_FACT_HBM_BYTES_PER_S,        /* HBM bandwidth per chip */
  VMEM_FACT_BF16_FLOPS,             /* peak bf16 FLOP/s per chip */
  VMEM_FACT_INT8_OPS,               /* peak int8 OP/s per chip */
  VMEM_FACT_FP8_FLOPS,              /* peak fp8 FLOP/s per chip */
  VMEM_FACT_MXU_DIM,                /* MXU is MXU_DIM x MXU_DIM */
  VMEM_FACT_MXUS_PER_CORE,          /* MXUs per TensorCore */
  VMEM_FACT_CORES_PER_CHIP,         /* TensorCores per chip */
  VMEM_FACT_MEGACORE,               /* 1 when two cores act as one device */
  VMEM_FACT_VREG_SUBLANES,          /* vector register sublanes */
  VMEM_FACT_VREG_LANES,             /* vector register lanes */
  VMEM_FACT_PREFETCHES_INPUTS,      /* 1: XLA copies a kernel's inputs (entry parameters) whole into VMEM
                                       before the kernel while they fit; a contiguous block of one needs no window */
  VMEM_FACT_PREFETCH_RESERVE_BYTES, /* VMEM that prefetch leaves free: its budget is physical - limit - this */
  VMEM_FACT_SCOPED_IN_HEAP,         /* 1: each instruction's requested scoped VMEM is packed as a buffer beside the
                                       program's S(1) values (else reserved at offset 0 under them) */
  /* The compiler's behaviour that the model keys on, one fact each, so that
   * a new generation states its own instead of inheriting a comparison of
   * generation numbers (docs/targets.md, "Model facts"). */
  VMEM_FACT_TILE_MIN_TWO_PACKS,      /* 1: a small second-minor tile holds at least two packs of rows (v2, v3) */
  VMEM_FACT_LARGE_TILING_NARROW,     /* 1: 16- and 8-bit arrays take the large tiling (2x, 4x the sublanes) */
  VMEM_FACT_LARGE_TILING_SCRATCH16,  /* 1: a kernel's own 16-bit buffers take the large tiling */
  VMEM_FACT_BF16_IN_F32,             /* 1: the VPU computes bf16 in f32: each bf16 value has an f32 copy */
  VMEM_FACT_ROW_BROADCAST_TILE,      /* 1: a row broadcast holds its tile of rows in scoped VMEM */
  VMEM_FACT_LANE_BROADCAST_COPY,     /* 1: a lane broadcast that is stored holds a copy of its result */
  VMEM_FACT_TRANSPOSE16_KEPT_BYTES,  /* what the registers keep of a 16-bit transpose's column strip */
  VMEM_FACT_TRANSPOSE8_WIDEN,        /* an 8-bit transpose's result is charged this many times over (0: not) */
  VMEM_FACT_TRANSPOSE8_SPARED_BYTES, /* ... less this much */
  VMEM_FACT_RELAYOUT_ROW_TILES,      /* 1: reductions, matmuls, transposes, stores relay out one-row tiles */
  VMEM_FACT_RELAYOUT_ROW_BROADCAST,  /* 1: so do row broadcasts of a loaded row and narrowings to bf16 */
  VMEM_FACT_KEPT_SPARED_BYTES,       /* a value kept whole is charged less this (0: less the register file
                                        once it passes it) */
  VMEM_FACT_COUNT
} vmem_fact_id;

typedef enum vmem_provenance {
  VMEM_PROV_DOCUMENTED, /* stated by a public document or source file */
  VMEM_PROV_OBSERVED,   /* seen in real compiler output or logs */
  VMEM_PROV_DERIVED     /* computed by vmemscope from other facts */
} vmem_provenance;

typedef struct vmem_fact {
  double value; /* bytes, bytes/s, FLOP/s, or a count */
  vmem_provenance provenance;
  const char *source; /* where the value comes from */
  const char *note;   /* conflicts resolved, rejected values; or NULL */
} vmem_fact;

/** Number of targets in the table, and the i-th (0-based, oldest first). */
VMEM_API size_t vmem_target_count(void);
VMEM_API const vmem_target *vmem_target_at(size_t i);
/** Finds a target by name or alias, case-insensitively ("v5e", "trillium",
 *  "TPU7x"). NULL when unknown. */
VMEM_API const vmem_target *vmem_target_find(const char *name, size_t len);
/** Canonical name ("v5e"), comma-separated aliases, the JAX device_kind. */
VMEM_API const char *vmem_target_name(const vmem_target *t);
VMEM_API const char *vmem_target_aliases(const vmem_target *t);
VMEM_API const char *vmem_target_device_kind(const vmem_target *t);
/** The hardware generation number (2..8), for people: no rule of the model
 *  keys on it (each behaviour is a fact of its own). */
VMEM_API int vmem_target_generation(const vmem_target *t);
/** A fact, or NULL when no public source gives it for this target. */
VMEM_API const vmem_fact *vmem_target_fact(const vmem_target *t, vmem_fact_id id);
/** A fact's value as an integer (bytes or count); 0 when unknown. */
VMEM_API uint64_t vmem_target_u64(const vmem_target *t, vmem_fact_id id);
/** A target of the caller's own, from facts alone: `facts` holds one
 *  vmem_fact per vmem_fact_id (`nfacts` of them, in id order; a fact whose
 *  `source` is NULL is unknown, read as 0). The model keys on nothing else,
 *  so a generation the table lacks behaves as its facts say. Its aliases
 *  and device kind are its name, its generation 0, and it has no topology
 *  (compile with an explicit one). Strings are copied. Free it with
 *  vmem_target_free; NULL with VMEM_ERR_ARGUMENT for a missing name or
 *  facts, VMEM_ERR_RANGE for more facts than VMEM_FACT_COUNT. */
VMEM_API vmem_target *vmem_target_new(const char *name, const vmem_fact *facts, size_t nfacts,
                                      const vmem_allocator *alloc, vmem_error *err);
VMEM_API void vmem_target_free(vmem_target *t);
/** Stable snake_case name of a fact ("vmem_bytes") and its unit ("bytes",
 *  "bytes/s", "flop/s", "count"). */
VMEM_API const char *vmem_fact_name(vmem_fact_id id);
VMEM_API const char *vmem_fact_unit(vmem_fact_id id);
VMEM_API const char *vmem_provenance_name(vmem_provenance p);

/* ## Shapes
 *
 * XLA shape syntax: `bf16[2048,4096]{1,0:T(8,128)(2,1)}`, tuples
 * `(f32[8]{0}, s32[])`, dynamic dimensions `<=N` and `?`, and every layout
 * field XLA prints (D, T with `*`, L, #, *, E, S, SC, P, M).
 */
typedef struct vmem_shape vmem_shape;

/** Parses exactly one shape from text[0..len); trailing text is an error.
 *  Returns NULL and fills `err` on failure. */
VMEM_API vmem_shape *vmem_shape_parse(const char *text, size_t len, const vmem_allocator *alloc, vmem_error *err);
VMEM_API void vmem_shape_free(vmem_shape *shape);

/** Prints the shape canonically in XLA syntax into buf (NUL-terminated when
 *  cap > 0). Returns the length the full text needs, like snprintf. */
VMEM_API size_t vmem_shape_print(const vmem_shape *shape, char *buf, size_t cap);
/** Prints only the layout part, "{1,0:T(8,128)(2,1)}", or "" if none. */
VMEM_API size_t vmem_shape_print_layout(const vmem_shape *shape, char *buf, size_t cap);

VMEM_API bool vmem_shape_is_tuple(const vmem_shape *shape);
VMEM_API size_t vmem_shape_tuple_count(const vmem_shape *shape);
VMEM_API const vmem_shape *vmem_shape_tuple_at(const vmem_shape *shape, size_t i);
VMEM_API vmem_dtype vmem_shape_dtype(const vmem_shape *shape);
VMEM_API size_t vmem_shape_rank(const vmem_shape *shape);
/** Dimension i's size (its bound when `<=N`; -1 when `?`). */
VMEM_API int64_t vmem_shape_dim(const vmem_shape *shape, size_t i);
VMEM_API bool vmem_shape_dim_is_dynamic(const vmem_shape *shape, size_t i);
VMEM_API bool vmem_shape_has_layout(const vmem_shape *shape);
/** True when the layout carries tiles (`T(...)`); for a tuple, when every
 *  array element does. */
VMEM_API bool vmem_shape_has_tiles(const vmem_shape *shape);
/** The `S(n)` memory space (0 when absent). */
VMEM_API int64_t vmem_shape_memory_space(const vmem_shape *shape);

/** Byte sizes of a shape as written: `bytes` by XLA's ArraySize rule (the
 *  first tile pads, then L(n), then E(bits) or the byte width), and
 *  `unpadded_bytes` as ByteSizeOfElements. For a tuple, the sums over its
 *  array leaves (the tuple's own index table is not counted). */
typedef struct vmem_size {
  uint64_t bytes;
  uint64_t unpadded_bytes;
} vmem_size;

VMEM_API vmem_status vmem_shape_size(const vmem_shape *shape, vmem_size *out, vmem_error *err);

/** A copy of `shape` in which every array without tiles gets the default
 *  TPU layout the target assigns (minor_to_major kept when given, the
 *  default tiling, E(bits) for sub-byte types). Arrays that already carry
 *  tiles are copied unchanged. */
VMEM_API vmem_shape *vmem_shape_with_tpu_layout(const vmem_shape *shape, const vmem_target *target,
                                                const vmem_allocator *alloc, vmem_error *err);

/* ## Human-readable sizes, as the TPU compiler prints them */

/** Formats like tsl's HumanReadableNumBytes: "512B", "64.0K", "16.00M",
 *  "32.00G". Returns the length needed, like snprintf. */
VMEM_API size_t vmem_format_bytes(int64_t bytes, char *buf, size_t cap);

/** The closed byte interval [lo, hi] of values that print as `text`
 *  ("64.0K" -> [65485, 65587]). */
VMEM_API vmem_status vmem_parse_human_bytes(const char *text, size_t len, uint64_t *lo, uint64_t *hi, vmem_error *err);

/* ## Scoped-VMEM limit resolution
 *
 * generation default <- --xla_tpu_scoped_vmem_limit_kib (LIBTPU_INIT_ARGS,
 * XLA_FLAGS, or explicit flags) <- a kernel's vmem_limit_bytes.
 * The library reads no environment: the caller passes the strings.
 */
typedef struct vmem_limit_inputs {
  const char *libtpu_init_args; /* LIBTPU_INIT_ARGS, or NULL */
  const char *xla_flags;        /* XLA_FLAGS, or NULL */
  const char *flags;            /* flags given explicitly, or NULL */
  int64_t vmem_limit_bytes;     /* a kernel's request; < 0 when none */
} vmem_limit_inputs;

typedef enum vmem_limit_origin { VMEM_LIMIT_DEFAULT, VMEM_LIMIT_FLAG, VMEM_LIMIT_KERNEL } vmem_limit_origin;

typedef enum vmem_limit_warning_code {
  VMEM_WARN_ABOVE_PHYSICAL,    /* a limit above physical VMEM */
  VMEM_WARN_XLA_FLAGS_ONLY,    /* flag only in XLA_FLAGS: libtpu ignores */
  VMEM_WARN_DUPLICATE,         /* the flag given more than once */
  VMEM_WARN_OVERRIDDEN,        /* a source overridden by a later one */
  VMEM_WARN_KERNEL_ABOVE_FLAG, /* vmem_limit_bytes above the flag value */
  VMEM_WARN_BELOW_RANGE,       /* below the flag's documented minimum */
  VMEM_WARN_DASHES             /* spelled with other than two dashes */
} vmem_limit_warning_code;

typedef struct vmem_limit_warning {
  vmem_limit_warning_code code;
  char message[200];
} vmem_limit_warning;

#define VMEM_LIMIT_MAX_WARNINGS 8

typedef struct vmem_limits {
  uint64_t default_bytes;  /* the generation's default scoped limit */
  uint64_t physical_bytes; /* physical VMEM per TensorCore */
  bool has_flag;
  uint64_t flag_bytes;     /* the flag's value in bytes (KiB x 1024) */
  const char *flag_origin; /* "LIBTPU_INIT_ARGS", "XLA_FLAGS", "--flags" */
  bool flag_applied;       /* false when seen only where libtpu ignores it */
  bool has_kernel;
  uint64_t kernel_bytes; /* vmem_limit_bytes */
  uint64_t effective_bytes;
  vmem_limit_origin origin;
  size_t warning_count;
  vmem_limit_warning warnings[VMEM_LIMIT_MAX_WARNINGS];
} vmem_limits;

/** Resolves the effective scoped limit. A malformed flag value is an error
 *  whose message names the variable and whose offset is into that string. */
VMEM_API vmem_status vmem_limits_resolve(const vmem_target *target, const vmem_limit_inputs *in, vmem_limits *out,
                                         vmem_error *err);
VMEM_API const char *vmem_limit_origin_name(vmem_limit_origin o);
VMEM_API const char *vmem_limit_warning_name(vmem_limit_warning_code c);

/* ## HLO modules
 *
 * HLO text as XLA prints it (dumps before and after optimization, JAX's
 * as_text, PyTorch/XLA dumps). Names, attribute values and strings are
 * views into the text: the text must outlive the module. vmem_hlo_open maps
 * a file and keeps the mapping for the module's life.
 */
typedef struct vmem_hlo_module vmem_hlo_module;
typedef struct vmem_hlo_computation vmem_hlo_computation;
typedef struct vmem_hlo_instruction vmem_hlo_instruction;

/** A view into the text (not NUL-terminated). */
typedef struct vmem_str {
  const char *ptr;
  size_t len;
} vmem_str;

/** Parses text[0..len). On error returns NULL; err->offset is a byte offset
 *  into `text` (vmem_locate gives line and column). From 512 KB of
 *  computations, with alloc NULL (malloc) and two processors online, the
 *  computations are read in two halves by two threads (POSIX): the same
 *  module and the same errors as one pass. With a caller's allocator the
 *  parse stays on the calling thread. */
VMEM_API vmem_hlo_module *vmem_hlo_parse(const char *text, size_t len, const vmem_allocator *alloc, vmem_error *err);
/** Maps and parses a file. Errors that concern the file itself (cannot open,
 *  cannot map) have offset 0 and say so in the message. */
VMEM_API vmem_hlo_module *vmem_hlo_open(const char *path, const vmem_allocator *alloc, vmem_error *err);

/** How a module is read, for vmem_hlo_parse_with and vmem_hlo_open_with. */
typedef struct vmem_parse_options {
  const vmem_allocator *alloc; /* NULL: malloc */
  unsigned threads;            /* 0: two where they pay (above); 1: the calling thread only, for this
                                  parse and for what later reads the module (its configs, the
                                  program-scoped planner's heap) */
} vmem_parse_options;

/** vmem_hlo_parse and vmem_hlo_open with options (NULL: the defaults). */
VMEM_API vmem_hlo_module *vmem_hlo_parse_with(const char *text, size_t len, const vmem_parse_options *opt,
                                              vmem_error *err);
VMEM_API vmem_hlo_module *vmem_hlo_open_with(const char *path, const vmem_parse_options *opt, vmem_error *err);
VMEM_API void vmem_hlo_free(vmem_hlo_module *m);

/** The whole text the module was parsed from. */
VMEM_API vmem_str vmem_hlo_text(const vmem_hlo_module *m);
/** The module's name ("" for a file without an HloModule header). */
VMEM_API vmem_str vmem_hlo_name(const vmem_hlo_module *m);
/** True when the module says is_scheduled=true: then each computation's
 *  text order is its execution order. */
VMEM_API bool vmem_hlo_is_scheduled(const vmem_hlo_module *m);
/** A module attribute's raw value (empty when absent). */
VMEM_API vmem_str vmem_hlo_attr(const vmem_hlo_module *m, const char *name);
VMEM_API size_t vmem_hlo_computation_count(const vmem_hlo_module *m);
/** Computations in text order (callees before callers). */
VMEM_API const vmem_hlo_computation *vmem_hlo_computation_at(const vmem_hlo_module *m, size_t i);
/** The ENTRY computation, or the last one when none is marked. */
VMEM_API const vmem_hlo_computation *vmem_hlo_entry(const vmem_hlo_module *m);
VMEM_API const vmem_hlo_computation *vmem_hlo_find_computation(const vmem_hlo_module *m, const char *name, size_t len);
/** Total instructions in all computations. */
VMEM_API size_t vmem_hlo_instruction_total(const vmem_hlo_module *m);
/** Prints the module back as HLO text that parses to the same IR. Returns
 *  the length needed, like snprintf. */
VMEM_API size_t vmem_hlo_print(const vmem_hlo_module *m, char *buf, size_t cap);

VMEM_API vmem_str vmem_hlo_computation_name(const vmem_hlo_computation *c);
VMEM_API bool vmem_hlo_computation_is_entry(const vmem_hlo_computation *c);
/** The execution thread (`execution_thread="host"`), empty for the main one. */
VMEM_API vmem_str vmem_hlo_computation_thread(const vmem_hlo_computation *c);
VMEM_API size_t vmem_hlo_computation_instruction_count(const vmem_hlo_computation *c);
VMEM_API const vmem_hlo_instruction *vmem_hlo_computation_instruction_at(const vmem_hlo_computation *c, size_t i);
/** The ROOT instruction, or the last one when none is marked. */
VMEM_API const vmem_hlo_instruction *vmem_hlo_computation_root(const vmem_hlo_computation *c);
/** The instructions that call this computation (call graph, reversed). */
VMEM_API size_t vmem_hlo_computation_caller_count(const vmem_hlo_computation *c);
VMEM_API const vmem_hlo_instruction *vmem_hlo_computation_caller_at(const vmem_hlo_computation *c, size_t i);
/** True when the computation is the body of a fusion (called by `calls=`
 *  of a fusion instruction): its instructions are not separate buffers. */
VMEM_API bool vmem_hlo_computation_is_fusion(const vmem_hlo_computation *c);

VMEM_API vmem_str vmem_hlo_instruction_name(const vmem_hlo_instruction *i);
VMEM_API vmem_str vmem_hlo_instruction_opcode(const vmem_hlo_instruction *i);
/** True when the instruction's result is a buffer of its own, the rule the
 *  program-scoped planner and `check` share (XLA's dataflow): false for an
 *  instruction inside a fusion body, a parameter of a called computation,
 *  and opcodes whose value is an operand's or a callee's (tuple,
 *  get-tuple-element, bitcast, call, while, conditional, domain,
 *  add-dependency, opt-barrier, copy-done). */
VMEM_API bool vmem_hlo_instruction_defines_buffer(const vmem_hlo_instruction *i);
/** The result shape (owned by the module). */
VMEM_API const vmem_shape *vmem_hlo_instruction_shape(const vmem_hlo_instruction *i);
VMEM_API bool vmem_hlo_instruction_is_root(const vmem_hlo_instruction *i);
VMEM_API const vmem_hlo_computation *vmem_hlo_instruction_parent(const vmem_hlo_instruction *i);
/** Byte offset of the instruction's name in the text. */
VMEM_API size_t vmem_hlo_instruction_offset(const vmem_hlo_instruction *i);
/** Its place among the module's instructions, computations and then their
 *  instructions in text order: 0 .. vmem_hlo_instruction_total() - 1. An
 *  index for arrays a caller keeps per instruction. */
VMEM_API size_t vmem_hlo_instruction_id(const vmem_hlo_instruction *i);
VMEM_API size_t vmem_hlo_instruction_operand_count(const vmem_hlo_instruction *i);
VMEM_API const vmem_hlo_instruction *vmem_hlo_instruction_operand_at(const vmem_hlo_instruction *i, size_t k);
VMEM_API size_t vmem_hlo_instruction_called_count(const vmem_hlo_instruction *i);
VMEM_API const vmem_hlo_computation *vmem_hlo_instruction_called_at(const vmem_hlo_instruction *i, size_t k);
/** Attributes in text order, each with its raw value text. */
VMEM_API size_t vmem_hlo_instruction_attr_count(const vmem_hlo_instruction *i);
VMEM_API vmem_str vmem_hlo_instruction_attr_name(const vmem_hlo_instruction *i, size_t k);
VMEM_API vmem_str vmem_hlo_instruction_attr_value(const vmem_hlo_instruction *i, size_t k);
/** An attribute's raw value by name (empty when absent). */
VMEM_API vmem_str vmem_hlo_instruction_attr(const vmem_hlo_instruction *i, const char *name);
/** custom_call_target without quotes (empty for other opcodes). */
VMEM_API vmem_str vmem_hlo_instruction_custom_call_target(const vmem_hlo_instruction *i);
/** metadata op_name without quotes (empty when absent). */
VMEM_API vmem_str vmem_hlo_instruction_op_name(const vmem_hlo_instruction *i);
/** For a Pallas/Mosaic kernel (custom_call_target="tpu_custom_call"): the
 *  kernel name, which is the instruction's name without its ".N" suffix. */
VMEM_API vmem_str vmem_hlo_instruction_kernel_name(const vmem_hlo_instruction *i);

/** What a TPU backend_config says about scoped memory. Sizes are -1 when
 *  absent. */
typedef struct vmem_hlo_scoped {
  int64_t limit_bytes;            /* scoped_memory_configs, memory space 1 */
  int64_t used_bytes;             /* used_scoped_memory_configs, memory space 1 */
  int64_t internal_scratch_bytes; /* custom_call_config.internal_scratch_in_bytes */
  bool has_kernel_body;           /* custom_call_config.body present */
  bool config_is_json;            /* backend_config parsed as JSON */
} vmem_hlo_scoped;

/** A standalone module holding the instruction alone: the computations it
 *  calls (transitively), parameters in place of its operands, its shape,
 *  layouts, backend_config and metadata kept — what an XLA bug report
 *  needs. snprintf semantics; SIZE_MAX with *err set for a parameter. */
VMEM_API size_t vmem_hlo_print_repro(const vmem_hlo_instruction *i, char *buf, size_t cap, vmem_error *err);

/** Decodes the instruction's backend_config. VMEM_OK with all -1 when there
 *  is none; an error (with the offset of the config) when it is malformed
 *  JSON. */
VMEM_API vmem_status vmem_hlo_instruction_scoped(const vmem_hlo_instruction *i, vmem_hlo_scoped *out, vmem_error *err);

/** Every instruction's backend_config decoded as vmem_hlo_instruction_scoped
 *  does, into out[vmem_hlo_instruction_id(i)]; out holds
 *  vmem_hlo_instruction_total(m) entries (all -1 where there is no config).
 *  A large module's configs are decoded on two threads when two processors
 *  are online and the module uses the default allocator. On malformed
 *  configs the error is the first in instruction order's, as one pass by
 *  vmem_hlo_instruction_scoped gives. */
VMEM_API vmem_status vmem_hlo_module_scoped(const vmem_hlo_module *m, vmem_hlo_scoped *out, vmem_error *err);

/** What a module's buffers take, per memory space, and its largest: the
 *  array leaves of every instruction vmem_hlo_instruction_defines_buffer
 *  accepts, laid out on the target (the layouts written, else the TPU's),
 *  each leaf in its own space; values that alias another buffer are not
 *  counted again. `check` prints these and puts them in its JSON. */
#define VMEM_MAX_SPACES 16
typedef struct vmem_space_total {
  int64_t memory_space; /* S(n) */
  size_t buffers;       /* array leaves */
  uint64_t bytes, unpadded_bytes;
} vmem_space_total;

typedef struct vmem_buffer_ref {
  const vmem_hlo_instruction *instruction;
  uint64_t bytes; /* its whole result, every leaf */
} vmem_buffer_ref;

typedef struct vmem_module_buffers {
  size_t nspaces; /* spaces in increasing order; past VMEM_MAX_SPACES they are not listed */
  vmem_space_total spaces[VMEM_MAX_SPACES];
  size_t nlargest;
  vmem_buffer_ref *largest; /* the `top` largest, biggest first, ties in module order */
  size_t unsized;           /* buffer-defining instructions whose shape cannot be laid out or sized */
  vmem_allocator alloc;     /* a copy of the one given (zero: malloc) */
} vmem_module_buffers;

VMEM_API vmem_status vmem_hlo_module_buffers(const vmem_hlo_module *m, const vmem_target *t, size_t top,
                                             vmem_module_buffers *out, const vmem_allocator *alloc, vmem_error *err);
VMEM_API void vmem_module_buffers_free(vmem_module_buffers *b);

/** A model of the least scoped VMEM a standard HLO op needs (not a custom
 *  call: Pallas kernels are sized exactly by vmem_kernel_footprint): its
 *  operands and result streamed through double-buffered windows of one
 *  tile, with the whole extents some ops need in one window — a reduce-
 *  window's window, a sort's dimension, a gather's slice, a scatter's
 *  update slice, a convolution's kernel window —, and f32 accumulators for
 *  reductions and matmuls. A lower bound from a model, never the
 *  compiler's figure: when it exceeds the instruction's limit, the op is a
 *  likely compiler-side OOM (docs/program.md). */
typedef struct vmem_std_scoped {
  bool applies;            /* an op this models (not a parameter, custom call, ...) */
  uint64_t min_bytes;      /* the modelled minimum */
  const char *rule;        /* "reduce-window", "sort", "dot", ..., "elementwise or data movement" */
  int64_t dominant;        /* the largest window: operand index, -1 the result, -2 an accumulator,
                              -3 inside a fusion's body */
  uint64_t dominant_bytes; /* that window with its buffers */
  uint64_t whole_bytes;    /* every window its whole array, once: the op in one step; a limit above
                              this buys nothing in the model */
} vmem_std_scoped;

VMEM_API vmem_status vmem_hlo_instruction_min_scoped(const vmem_hlo_instruction *i, const vmem_target *t,
                                                     vmem_std_scoped *out, vmem_error *err);

/** The modelled choice above the minimum under a limit — a model with its
 *  reasoning and calibration in docs/program.md, never the compiler's
 *  figure: whole_bytes (one step) when that fits a quarter of the limit;
 *  else the minimum doubled while it fits that quarter and stays below
 *  whole_bytes (bigger windows, fewer steps, pipelining kept); else the
 *  minimum. 0 for an op the model does not apply to. */
VMEM_API uint64_t vmem_std_scoped_likely(const vmem_std_scoped *m, uint64_t limit);

/** The Pallas kernel of a tpu_custom_call, read from the Mosaic bytecode in
 *  its backend_config (custom_call_config.body) and completed from the
 *  HLO: window arrays from the operands and the result, roles by count,
 *  vmem_limit_bytes, internal_scratch_in_bytes and cost_estimate.flops from
 *  the config, the name from kernel_name. NULL with VMEM_ERR_UNSUPPORTED
 *  when the instruction carries no body. Free with vmem_kernel_free. */
typedef struct vmem_kernel vmem_kernel;
VMEM_API vmem_kernel *vmem_hlo_instruction_kernel(const vmem_hlo_instruction *i, const vmem_allocator *alloc,
                                                  vmem_error *err);

/* ## Program-scoped packing
 *
 * XLA's heap simulator (GlobalDecreasingSizeBestFitHeap, spatial order):
 * buffers with inclusive logical live ranges are placed largest first at
 * the smallest aligned gap among the buffers they overlap in time. */
typedef struct vmem_heap_buffer {
  uint64_t size;
  int64_t start, end; /* inclusive logical times */
  uint64_t offset;    /* set by vmem_heap_pack */
  uint64_t floor;     /* the lowest offset allowed: above the scoped
                         reservations XLA places at offset 0 during the
                         buffer's life (0: none) */
} vmem_heap_buffer;

typedef struct vmem_heap_result {
  uint64_t heap_bytes;        /* the packed heap: the highest offset + size */
  uint64_t lower_bound_bytes; /* the peak of the live sizes' sum */
  int64_t peak_time;          /* the first step at that peak */
} vmem_heap_result;

/** Places every buffer (sets .offset); offsets are multiples of alignment
 *  (any positive value). From 65,536 buffers, where two processors are
 *  online, time is cut in two halves placed by two threads (POSIX; the
 *  lives across the cut are placed alone between them): the same offsets
 *  as one thread. The allocator is called from the calling thread only. */
VMEM_API vmem_status vmem_heap_pack(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                                    const vmem_allocator *alloc, vmem_error *err);

/** The better of XLA's spatial order (vmem_heap_pack) and its temporal
 *  order (live-range length, then size, descending): the temporal packing
 *  is kept only when its heap is smaller, as XLA's ChooseBestHeapAlgorithm
 *  does. The spatial packing stops once its heap passes the temporal one
 *  (it could only lose from there): the same result as both to the end. */
VMEM_API vmem_status vmem_heap_pack_best(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                                         const vmem_allocator *alloc, vmem_error *err);

/** The two packings with options: `best` chooses vmem_heap_pack_best over
 *  vmem_heap_pack; `threads` 1 keeps the work on the calling thread, 0
 *  splits it in two where that pays (as both do). */
typedef struct vmem_heap_options {
  uint64_t alignment;
  const vmem_allocator *alloc;
  bool best;
  unsigned threads;
} vmem_heap_options;
VMEM_API vmem_status vmem_heap_pack_with(vmem_heap_buffer *bufs, size_t n, const vmem_heap_options *opt,
                                         vmem_heap_result *out, vmem_error *err);

/* ## Program-scoped VMEM of an HLO module
 *
 * The values in memory space 1 (S(1) in their layouts), their live ranges
 * over the flattened schedule (called computations inlined before their
 * caller, as XLA's HloLiveRange does), packed by vmem_heap_pack. A model
 * of XLA's dataflow rules; docs/program.md says what it leaves out. */
typedef struct vmem_program_buffer {
  const vmem_hlo_instruction *instruction;
  size_t leaf; /* the tuple leaf (depth-first), 0 for an array */
  uint64_t bytes, unpadded_bytes;
  int64_t start, end; /* inclusive logical times */
  uint64_t offset;    /* in the packed heap */
  uint32_t values;    /* HLO values sharing it (while state, aliasing, in place); 1 alone */
} vmem_program_buffer;

typedef struct vmem_program_options {
  uint64_t alignment;            /* of offsets in the heap; 0 = 1 */
  uint64_t scoped_limit_bytes;   /* the global scoped limit; 0 = no reservations */
  bool tight;                    /* a kernel reserves its footprint, a standard op its modelled
                                  choice, not their limit */
  const vmem_hlo_scoped *scoped; /* optional: each instruction's vmem_hlo_instruction_scoped,
                                  indexed by vmem_hlo_instruction_id, for a caller that has
                                  decoded them already (a backend_config is JSON: decoding
                                  it twice was a quarter of check); NULL decodes them here */
} vmem_program_options;

/** Steps in a row that reserve the same scoped bytes at offset 0. */
typedef struct vmem_program_reservation {
  int64_t start, end; /* inclusive steps */
  uint64_t bytes;
  const vmem_hlo_instruction *instruction; /* the first step's */
} vmem_program_reservation;

typedef struct vmem_program {
  size_t count;
  vmem_program_buffer *buffers; /* by start time */
  size_t nreservations;
  vmem_program_reservation *reservations;          /* the steps that reserve, run-length: the timeline's floor */
  uint64_t peak_bytes;                             /* the packed heap of the values alone */
  uint64_t used_bytes;                             /* with each step's scoped reservation at offset 0 */
  uint64_t scoped_reservation_bytes;               /* the largest reservation */
  const vmem_hlo_instruction *largest_reservation; /* whose it is, or NULL */
  uint64_t lower_bound_bytes;                      /* the peak of the live sizes' sum */
  int64_t peak_time;                               /* the first step at that peak */
  uint64_t capacity_bytes;                         /* the target's physical VMEM */
  int64_t schedule_length;
  bool scheduled;       /* is_scheduled=true; else text order */
  bool scoped_in_heap;  /* VMEM_FACT_SCOPED_IN_HEAP: used_bytes packs each step's requested scoped VMEM (its
                           scoped_memory_configs) as a buffer beside the values, not at offset 0 under them */
  vmem_allocator alloc; /* a copy of the one it was made with (zero: malloc), so that
                                   vmem_program_free needs nothing else alive */
} vmem_program;

/** Each executed instruction reserves its scoped memory at offset 0 for
 *  its step: the compiler's used_scoped_memory_configs where the text has
 *  it, else its kernel's or its config's limit (opt->tight: a kernel's
 *  footprint, a standard op's vmem_std_scoped_likely under that limit),
 *  else opt->scoped_limit_bytes. opt NULL: no reservations. On a target
 *  with VMEM_FACT_SCOPED_IN_HEAP (7x) the reservation is the requested
 *  scoped_memory_configs where the text has it, packed as a buffer of its
 *  step beside the values (p->scoped_in_heap). */
VMEM_API vmem_status vmem_hlo_program_vmem(const vmem_hlo_module *m, const vmem_target *t,
                                           const vmem_program_options *opt, vmem_program *out,
                                           const vmem_allocator *alloc, vmem_error *err);
VMEM_API void vmem_program_free(vmem_program *p);
/** The plan's invariants: no two buffers live at the same step overlap in
 *  the heap, every offset is a multiple of `alignment` (0 = 1) and at or
 *  above the largest reservation of its life, used_bytes is the top of the
 *  heap (or the largest reservation; with scoped_in_heap, at least both, and
 *  no floor applies), and lower_bound_bytes is the peak of
 *  the live sizes' sum, at peak_time, under peak_bytes. VMEM_ERR_INTERNAL
 *  naming the first broken one. A debug build checks every plan it makes. */
VMEM_API vmem_status vmem_program_check(const vmem_program *p, uint64_t alignment, vmem_error *err);

/* ## StableHLO text
 *
 * What jax.jit(f).lower(*args).as_text() prints: read far enough to list
 * its ops and to take each tpu_custom_call's kernel with the tensor types
 * of its operands and results. Views point into the text, which must
 * outlive the module. */
typedef struct vmem_stablehlo vmem_stablehlo;
typedef struct vmem_stablehlo_op {
  vmem_str func;           /* the enclosing func.func */
  vmem_str result;         /* "%0", or "%0, %1"; empty when none */
  vmem_str opcode;         /* "stablehlo.custom_call" */
  vmem_str target;         /* custom calls: "tpu_custom_call" */
  vmem_str kernel_name;    /* custom calls: kernel_name, unescaped */
  vmem_str backend_config; /* custom calls: unescaped */
  size_t offset;           /* of the op's line in the text */
  size_t noperands;
  size_t noperand_types, nresults;
  const vmem_shape *const *operand_types; /* NULL entries: not a tensor */
  const vmem_shape *const *result_types;
} vmem_stablehlo_op;

VMEM_API vmem_stablehlo *vmem_stablehlo_parse(const char *text, size_t len, const vmem_allocator *alloc,
                                              vmem_error *err);
VMEM_API void vmem_stablehlo_free(vmem_stablehlo *m);
VMEM_API vmem_str vmem_stablehlo_name(const vmem_stablehlo *m);
VMEM_API size_t vmem_stablehlo_op_count(const vmem_stablehlo *m);
VMEM_API const vmem_stablehlo_op *vmem_stablehlo_op_at(const vmem_stablehlo *m, size_t i);
/** The kernel of a tpu_custom_call op, as vmem_hlo_instruction_kernel. */
VMEM_API vmem_kernel *vmem_stablehlo_op_kernel(const vmem_stablehlo *m, size_t i, const vmem_allocator *alloc,
                                               vmem_error *err);

/* ## Pallas/Mosaic kernels
 *
 * A kernel: its grid, its operands in Mosaic order (scalar prefetch,
 * inputs, outputs, scratch), each with a role, a memory space, a block
 * (window) shape with its dtype, a buffer count, and for each block
 * dimension the grid axis that drives it. Read from Mosaic MLIR text (what
 * pallas_call(debug=True) prints) or from a JSON kernel spec
 * (docs/kernel-spec.md).
 */

typedef enum vmem_operand_role {
  VMEM_ROLE_SCALAR_PREFETCH,
  VMEM_ROLE_INPUT,
  VMEM_ROLE_OUTPUT,
  VMEM_ROLE_SCRATCH
} vmem_operand_role;

typedef enum vmem_memory_space {
  VMEM_SPACE_VMEM,
  VMEM_SPACE_ANY, /* pl.ANY / HBM: no window, no VMEM */
  VMEM_SPACE_SMEM,
  VMEM_SPACE_SEMAPHORE
} vmem_memory_space;

/* How a block dimension's index follows the grid. */
#define VMEM_INDEX_CONSTANT (-1) /* a constant block index */
#define VMEM_INDEX_UNKNOWN (-2)  /* not analysable from the index map */

#define VMEM_KERNEL_MAX_RANK 16

typedef struct vmem_operand {
  vmem_operand_role role;
  vmem_memory_space space;
  const vmem_shape *block; /* window shape and dtype; NULL for semaphores */
  const vmem_shape *array; /* the whole array when known, else NULL */
  int buffers;             /* buffer count used (1 or 2); 0 for no window */
  bool buffers_given;      /* set by Buffered(n) / pipeline_mode */
  bool aliased;            /* an input aliased to an output (spec) */
  size_t rank;
  int index_axis[VMEM_KERNEL_MAX_RANK];      /* grid axis per block dim, or VMEM_INDEX_* */
  int block_param[VMEM_KERNEL_MAX_RANK];     /* the spec parameter setting each block dim, or -1 */
  const char *name;                          /* spec name or "argN" */
  int64_t index_const[VMEM_KERNEL_MAX_RANK]; /* the block index where index_axis is VMEM_INDEX_CONSTANT */
} vmem_operand;

/** Parses the first kernel of a Mosaic MLIR module: the func carrying
 *  window_params or dimension_semantics, and its transform_N index maps. */
VMEM_API vmem_kernel *vmem_kernel_from_mlir(const char *text, size_t len, const vmem_allocator *alloc, vmem_error *err);
/** Reads a kernel from Mosaic MLIR bytecode: the raw bytes ("ML\xefR...")
 *  or their base64, as custom_call_config.body carries it. The body is
 *  decoded to MLIR text and read as vmem_kernel_from_mlir reads text;
 *  errors in the bytecode give the byte offset in the decoded bytes. */
VMEM_API vmem_kernel *vmem_kernel_from_bytecode(const void *data, size_t len, const vmem_allocator *alloc,
                                                vmem_error *err);
/** Mosaic MLIR bytecode (raw or base64) as MLIR text, with snprintf
 *  semantics: writes at most cap bytes (NUL included) and returns the
 *  length of the whole text, or SIZE_MAX with *err set. */
VMEM_API size_t vmem_bytecode_text(const void *data, size_t len, char *buf, size_t cap, const vmem_allocator *alloc,
                                   vmem_error *err);
/** Parses a JSON kernel spec. Named block parameters take their values
 *  from the spec's "params" object. */
VMEM_API vmem_kernel *vmem_kernel_from_spec(const char *text, size_t len, const vmem_allocator *alloc, vmem_error *err);
VMEM_API void vmem_kernel_free(vmem_kernel *k);

VMEM_API const char *vmem_kernel_name(const vmem_kernel *k);
VMEM_API size_t vmem_kernel_grid_rank(const vmem_kernel *k);
/** The grid's bound along axis: VMEM_GRID_DYNAMIC when it is known only at
 *  run time (an iteration bound MLIR states as dynamic), 0 past the rank. */
VMEM_API int64_t vmem_kernel_grid_bound(const vmem_kernel *k, size_t axis);
#define VMEM_GRID_DYNAMIC (-1)
/** The grid axis's name ("i" in a spec; "g0", "g1", ... otherwise). */
VMEM_API const char *vmem_kernel_grid_axis_name(const vmem_kernel *k, size_t axis);
/** "parallel", "arbitrary", "core_parallel", ... ("" when not given). */
VMEM_API const char *vmem_kernel_dimension_semantics(const vmem_kernel *k, size_t axis);
VMEM_API size_t vmem_kernel_operand_count(const vmem_kernel *k);
VMEM_API const vmem_operand *vmem_kernel_operand(const vmem_kernel *k, size_t i);
/** The kernel's own vmem_limit_bytes, or -1. */
VMEM_API int64_t vmem_kernel_vmem_limit_bytes(const vmem_kernel *k);
/** internal_scratch_in_bytes given by the kernel, or -1. */
VMEM_API int64_t vmem_kernel_internal_scratch_bytes(const vmem_kernel *k);
/** False when the reader could not tell inputs from outputs (MLIR with no
 *  store into any window): every window is then reported as an input. */
VMEM_API bool vmem_kernel_roles_known(const vmem_kernel *k);
/** Whether the body model saw the kernel's body (MLIR text or bytecode):
 *  a JSON spec has none, so its verdicts leave the body's values out. */
VMEM_API bool vmem_kernel_body_modelled(const vmem_kernel *k);
/** The kernel's output shape as the HLO custom call would print it (the
 *  output blocks' arrays when known), or NULL. */
VMEM_API const vmem_shape *vmem_kernel_result_shape(const vmem_kernel *k);

/* ## The scoped footprint of a kernel
 *
 * Allocations in order, placed by a stack allocator: windows (buffers x
 * padded block) for VMEM inputs and outputs, scratch once, then the
 * internal scratch and modelled extras, which are kept apart from the
 * exact, compiler-comparable figure.
 */
typedef enum vmem_alloc_kind {
  VMEM_ALLOC_WINDOW,
  VMEM_ALLOC_SCRATCH,
  VMEM_ALLOC_INTERNAL_SCRATCH, /* per generation or given; not in scoped_bytes */
  VMEM_ALLOC_MODELLED,         /* an estimate (e.g. a matmul accumulator) */
  VMEM_ALLOC_PREFETCHED        /* an input the compiler copies whole into VMEM before the kernel and the
                                  kernel reads in place (VMEM_FACT_PREFETCHES_INPUTS): program-scoped, off
                                  the stack (offset 0), not in scoped_bytes */
} vmem_alloc_kind;

typedef struct vmem_allocation {
  vmem_alloc_kind kind;
  size_t operand; /* index into the kernel's operands; SIZE_MAX for none */
  int buffers;
  uint64_t bytes;          /* all buffers, padded */
  uint64_t unpadded_bytes; /* all buffers */
  uint64_t offset;         /* stack offset, aligned */
  const char *note;        /* what it is, for modelled lines */
  size_t alike;            /* modelled: how many alike copies the body unrolls, charged as held at once
                              (0 or 1: one value) */
  bool unrolled;           /* modelled: the one line for all `alike` copies at once (not one value of them) */
  bool outside_domain;     /* modelled: sized by a pattern (a fitted factor, unrolled copies) or outside the
                              shapes its rule was measured on: may make a kernel "at risk", never "likely E1001" */
} vmem_allocation;

typedef struct vmem_plan_options {
  uint64_t alignment;       /* stack alignment in bytes; 0 = 512 */
  int64_t internal_scratch; /* -1 = the kernel's, else the target's */
  bool model_intermediates; /* add modelled lines from the MLIR body */
  uint64_t limit_bytes;     /* the scoped limit in force, which sizes the prefetch budget
                               (VMEM_FACT_PREFETCH_RESERVE_BYTES); 0: the kernel's vmem_limit_bytes, else
                               the target's default */
} vmem_plan_options;

typedef struct vmem_footprint {
  size_t count;
  vmem_allocation *allocs; /* owned by the footprint */
  uint64_t scoped_bytes;   /* windows + scratch: the compiler-comparable figure */
  uint64_t internal_scratch_bytes;
  uint64_t modelled_bytes;            /* the body's values, the model's estimate (docs/kernels.md "Body values") */
  uint64_t modelled_firm_bytes;       /* the part of the estimate sized by rules inside the domain they were measured
                                   on (docs/kernels.md "Where the rules hold"); <= modelled_bytes */
  uint64_t modelled_high_bytes;       /* their ceiling: each rule at its worst error on the oracle's records, and
                                   what the estimate leaves out (docs/kernels.md "The ceiling"); >= modelled */
  uint64_t modelled_rules_high_bytes; /* the ceiling of the rules alone, without the floor for what no rule
                                        names (every live value at once): what the limit requested holds */
  uint64_t prefetched_bytes;          /* VMEM_ALLOC_PREFETCHED inputs: program-scoped VMEM the kernel reads in place
                                (other inputs prefetched but read through windows are not counted) */
  uint64_t stack_bytes;               /* the top of the stack, all lines, aligned */
  uint64_t smem_bytes;                /* SMEM operands and scratch */
  uint64_t alignment;
  uint64_t forwarded_bytes;  /* scratch the body writes whole before reading it every step, which the compiler
                                forwards and allocates no buffer for: out of scoped_bytes, in the ceiling */
  size_t body_values_unread; /* vector values of the body the model could not size (a dynamic or unknown
                                   type, or past its room): not in modelled_bytes nor modelled_high_bytes */
  vmem_allocator alloc;      /* a copy of the kernel's (zero: malloc): free the kernel first if you like */
} vmem_footprint;

VMEM_API vmem_status vmem_kernel_footprint(const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *opt,
                                           vmem_footprint *out, vmem_error *err);
VMEM_API void vmem_footprint_free(vmem_footprint *f);
/** The footprint's invariants: offsets aligned, no two allocations
 *  overlapping (all are live at once), stack_bytes the top, and each total
 *  (scoped, internal scratch, modelled) the sum of its allocations.
 *  VMEM_ERR_INTERNAL naming the first broken one. A debug build checks
 *  every footprint it makes. */
VMEM_API vmem_status vmem_footprint_check(const vmem_footprint *f, vmem_error *err);
VMEM_API const char *vmem_alloc_kind_name(vmem_alloc_kind kind);

/* ## The verdict
 *
 * One decision for the CLI, the JSON, the report and Python: a kernel's
 * footprint against the limit in force and against SMEM. */
typedef enum vmem_verdict_code {
  VMEM_VERDICT_FITS,         /* with the body's values at their ceiling (the internal scratch lies beside the limit) */
  VMEM_VERDICT_AT_RISK,      /* fits with the body's estimated values, not at their ceiling; or over with them
                                only through rules outside their domain (estimate_over): the model cannot say */
  VMEM_VERDICT_LIKELY_E1001, /* the exact part fits; with the values the rules inside their domain size, not */
  VMEM_VERDICT_E1001         /* the exact part (windows + scratch) exceeds the limit */
} vmem_verdict_code;

typedef struct vmem_verdict {
  vmem_verdict_code scoped;     /* scoped VMEM against limit_bytes */
  uint64_t limit_bytes;         /* the effective limit, or physical VMEM where that is smaller */
  bool limit_capped;            /* the effective limit was above physical VMEM (the compiler then fails on
                                    capacity, "Used X of Y vmem") */
  uint64_t exact_bytes;         /* windows + scratch: the figure the compiler prints */
  uint64_t predicted_bytes;     /* exact + the body's modelled values */
  uint64_t ceiling_bytes;       /* exact + their ceiling (modelled_high_bytes): "fits" means this fits */
  uint64_t firm_bytes;          /* exact + the values sized by rules inside their domain: "likely E1001" means
                                   this is over */
  bool estimate_over;           /* at risk because predicted_bytes is over, though firm_bytes is not: the rules
                                   that put it over are patterns or outside their domain */
  uint64_t needed_bytes;        /* what a limit must hold: predicted (the internal scratch is beside it) */
  uint64_t smem_bytes;          /* scalar prefetch, SMEM operands and scratch */
  uint64_t smem_capacity_bytes; /* the target's SMEM; 0 when unknown (then never over) */
  bool smem_over;               /* smem_bytes > smem_capacity_bytes: "Ran out of memory in memory space smem" */
  bool fits;                    /* scoped is FITS or AT_RISK, and SMEM is not over */
} vmem_verdict;

/** The verdict on footprint f under the limits l resolved for target t. */
VMEM_API vmem_status vmem_kernel_verdict(const vmem_footprint *f, const vmem_limits *l, const vmem_target *t,
                                         vmem_verdict *out, vmem_error *err);
/** "fits", "at_risk", "likely_e1001", "e1001" (the JSON's `verdict`); NULL out of range. */
VMEM_API const char *vmem_verdict_name(vmem_verdict_code c);
/** The vmem_limit_bytes to request for a need: `needed_bytes` rounded up to
 *  a MiB (the form limits are written in); 0 when that passes 2^64. */
VMEM_API uint64_t vmem_request_bytes(uint64_t needed_bytes);
/** The vmem_limit_bytes to ask for a kernel: its ceiling (exact + the body's
 *  values at their ceiling) rounded up to a MiB where that is within
 *  `physical_bytes` (0: no bound); else all of physical VMEM where the
 *  estimate's need fits it; else that need rounded up (above physical VMEM:
 *  no limit helps). A request at the estimate alone fell short of the
 *  compiler's figure on 14 of the oracle's 61 refused kernels; at this
 *  limit all 61 compile (docs/fidelity.md, "The limit to request"). */
VMEM_API uint64_t vmem_request_limit(uint64_t needed_bytes, uint64_t ceiling_bytes, uint64_t physical_bytes);

/* ## Remedies with numbers, in this order: smaller blocks, a per-kernel
 * limit, Buffered(1), coloring (the global flag is the CLI's to print) */
#define VMEM_REMEDY_MAX 16

typedef struct vmem_shrink {
  size_t operand;         /* the operand whose block changes (MLIR), or the first one using the parameter */
  size_t dim;             /* the block dimension */
  int param;              /* the spec parameter that changes, or -1 */
  const char *param_name; /* its name, or NULL */
  int64_t from, to;
  uint64_t scoped_bytes; /* windows + scratch afterwards */
} vmem_shrink;

typedef struct vmem_buffered1 {
  size_t operand;
  uint64_t saved_bytes;
} vmem_buffered1;

typedef struct vmem_coloring {
  size_t operand;
  uint64_t scoped_saved_bytes; /* its windows leave the scoped region */
  int64_t program_added_bytes; /* the whole array in VMEM; -1 when unknown */
} vmem_coloring;

typedef struct vmem_remedies {
  uint64_t limit_bytes;
  uint64_t needed_bytes;  /* scoped + the body's estimated values (the internal scratch lies beside the limit) */
  uint64_t ceiling_bytes; /* scoped + the body's values at the rules' ceiling (modelled_rules_high_bytes) */
  size_t nshrink;
  vmem_shrink shrink[VMEM_REMEDY_MAX];
  uint64_t request_bytes;  /* vmem_limit_bytes to request (vmem_request_limit): the ceiling rounded up to a MiB,
                             or the need where the ceiling's is above physical VMEM */
  bool request_at_ceiling; /* request_bytes holds the ceiling, not only the estimate */
  bool request_estimate;   /* request_bytes is the estimate's need: the estimate is over only through rules
                              outside their domain (the verdict's estimate_over), whose ceiling is no guide */
  bool request_within_physical;
  size_t nbuffered1;
  vmem_buffered1 buffered1[VMEM_REMEDY_MAX];
  size_t ncoloring;
  vmem_coloring coloring[VMEM_REMEDY_MAX];
  size_t ncolor_too_big; /* inputs left out of coloring: their whole array exceeds physical VMEM */
} vmem_remedies;

/** Computes the remedies for a kernel checked against `limit_bytes`:
 *  block shrinks that fit (largest windows first, legal block shapes),
 *  the limit to request, Buffered(1) candidates (inputs whose block does
 *  not move along the innermost grid axis), and the coloring what-if. */
VMEM_API vmem_status vmem_kernel_remedies(const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *opt,
                                          uint64_t limit_bytes, vmem_remedies *out, vmem_error *err);

/* ## Explaining compiler logs
 *
 * Finds TPU compiler memory errors in any log (tracebacks, logger
 * prefixes, messages escaped in a Python repr, CRLF), classifies each, and
 * converts every printed size into the byte interval it stands for.
 */
typedef enum vmem_oom_kind {
  VMEM_OOM_SCOPED_VMEM,  /* E1001: an instruction's scoped allocation over its limit */
  VMEM_OOM_PROGRAM_VMEM, /* "Used X of Y vmem": program-wide VMEM capacity */
  VMEM_OOM_VMEM_REQUEST, /* "Allocation (size=N) would exceed memory": a limit above physical VMEM */
  VMEM_OOM_SMEM,
  VMEM_OOM_HBM,
  VMEM_OOM_NOT_COMPILER, /* another tool's estimate in the compiler's wording */
  VMEM_OOM_LISTING,      /* an allocation listing whose header is not in the log */
  VMEM_OOM_EMITTER_ABORT /* libtpu aborted (a CHECK): the global scoped limit leaves a standard op's emitter no VMEM */
} vmem_oom_kind;

/** A size as printed ("36.25M") and the closed byte interval it stands for. */
typedef struct vmem_printed {
  bool present;
  char text[24];
  uint64_t lo, hi;
} vmem_printed;

typedef struct vmem_log_alloc {
  vmem_printed size, unpadded, extra;
  const char *shape; /* NULL when the entry has none */
  const char *label; /* "XLA label" */
  const char *op;    /* "Operator" */
  const char *allocation_type;
  bool spill;      /* register allocator spill slots */
  bool recomputed; /* the shape was sized by vmemscope */
  uint64_t recomputed_bytes, recomputed_unpadded;
  bool size_agrees, unpadded_agrees;
} vmem_log_alloc;

typedef struct vmem_log_error {
  vmem_oom_kind kind;
  size_t offset;           /* of the message in the input */
  size_t count;            /* identical messages folded into this one */
  int custom_kernel;       /* 1 yes, 0 no, -1 unknown */
  const char *evidence;    /* why custom_kernel is what it is */
  const char *instruction; /* %name, or NULL when elided */
  const char *shape, *opcode, *custom_call_target, *kernel, *op_name;
  const char *tag;                     /* the old format's tag = '...' */
  vmem_printed size, limit, excess;    /* scoped: size and limit; hbm early abort: requires/has */
  vmem_printed used, capacity;         /* program-wide */
  int64_t request_bytes, memory_bytes; /* the old format's exact sizes; -1 when absent */
  const char *message;                 /* the error's first line, cleaned */
  size_t nallocs;
  const vmem_log_alloc *allocs;
  size_t mentions;  /* mentions without figures (quoted titles, prose) folded into this one */
  unsigned forms;   /* VMEM_FORM_* bits: what the text was read out of (0: a clean log) */
  unsigned derived; /* VMEM_DERIVED_* bits: figures the log lacked, derived from the others */
  bool listing_cut; /* the log ends inside the listing's last entry (what it saw is listed) */
  vmem_printed requirement, requirement_scoped; /* "Program vmem requirement X:" and its "scoped Y" line */
  const char *hosts; /* the hosts or pods whose prefixes printed it, ", "-separated (at most 16;
                                   NULL when no prefix names one) */
  size_t nhosts;     /* how many distinct hosts printed it */
} vmem_log_error;

/* The forms a pasted log comes in, each undone before the report is read. */
enum {
  VMEM_FORM_WRAPPED = 1u << 0,  /* lines broken inside the message (and re-indented) */
  VMEM_FORM_QUOTED = 1u << 1,   /* markdown quote markers ("> ") */
  VMEM_FORM_FENCED = 1u << 2,   /* inside a markdown code fence */
  VMEM_FORM_HTML = 1u << 3,     /* HTML-escaped (&gt; &quot; &#39;) */
  VMEM_FORM_ESCAPED = 1u << 4,  /* a Python repr's or a JSON string's escapes (\n \" \uXXXX) */
  VMEM_FORM_ANSI = 1u << 5,     /* ANSI colour codes */
  VMEM_FORM_PREFIXED = 1u << 6, /* logger prefixes (glog, absl, Python logging, timestamps, pods) */
  VMEM_FORM_JSON = 1u << 7,     /* JSON log lines ({"severity": ..., "message": "..."}) */
  VMEM_FORM_COUNT = 8
};
/** The name of form bit i (0 .. VMEM_FORM_COUNT-1): "wrapped", "quoted", ... */
VMEM_API const char *vmem_log_form_name(unsigned i);

/* A scoped report's figures derived as size = limit + excess, an exact
 * interval from the two rounded figures the log has. */
enum { VMEM_DERIVED_SIZE = 1u << 0, VMEM_DERIVED_LIMIT = 1u << 1, VMEM_DERIVED_EXCESS = 1u << 2 };

typedef struct vmem_log_report vmem_log_report;

/** Explains every memory error in text[0..len). Listing shapes are sized
 *  with `target`'s default layouts (v5e when NULL). */
VMEM_API vmem_log_report *vmem_explain(const char *text, size_t len, const vmem_target *target,
                                       const vmem_allocator *alloc, vmem_error *err);
VMEM_API size_t vmem_log_error_count(const vmem_log_report *r);
VMEM_API const vmem_log_error *vmem_log_error_at(const vmem_log_report *r, size_t i);
VMEM_API void vmem_log_report_free(vmem_log_report *r);
/** Whether two reports are the same error, whatever prefixes each copy
 *  carried: the rule vmem_explain folds copies by (count), for a caller
 *  that explains a log in pieces and merges them. */
VMEM_API bool vmem_log_error_same(const vmem_log_error *a, const vmem_log_error *b);
/** Folds e, the same error (vmem_log_error_same) read again elsewhere (in
 *  another window of one log, say), into `into`: count and mentions add up,
 *  forms join, and the hosts are united, each once, at most 16 listed
 *  (nhosts counts those past the list: then an upper bound, since hosts
 *  neither list names cannot be told apart). The united list is written to buf,
 *  cap bytes (strlen of both lists + 3 holds it whole; less cuts it at a
 *  host), and into->hosts then points at buf. */
VMEM_API void vmem_log_error_fold(vmem_log_error *into, const vmem_log_error *e, char *buf, size_t cap);
VMEM_API const char *vmem_oom_kind_name(vmem_oom_kind kind);

/* ## What to do about a logged error: explain's remedies, decided once
 * here and rendered by explain's text, its JSON and the HTML report alike
 * (docs/explain.md, "Remedies"). */
typedef enum vmem_log_remedy_kind {
  VMEM_LOG_REMEDY_LARGEST,      /* the largest listed allocation dominates: start there */
  VMEM_LOG_REMEDY_SPILL,        /* register-allocator spill slots: smaller live values */
  VMEM_LOG_REMEDY_COMPILER_BUG, /* a standard op's spill slots: report it */
  VMEM_LOG_REMEDY_SCOPED,       /* instructions' scoped allocations: a lower scoped limit */
  VMEM_LOG_REMEDY_UNCOLOR,      /* values colored to VMEM: uncolor the largest */
  VMEM_LOG_REMEDY_FREE          /* how much to free */
} vmem_log_remedy_kind;

enum { VMEM_LOG_REMEDY_MAX = 6 };

typedef struct vmem_log_remedy {
  vmem_log_remedy_kind kind;
  char text[400]; /* the remedy in words, with its numbers */
} vmem_log_remedy;

typedef struct vmem_log_remedies {
  /* An E1001 whose size is printed: */
  bool scoped;
  uint64_t request_bytes;      /* the printed size rounded up to a MiB: the vmem_limit_bytes (and, /1024, the
                                  --xla_tpu_scoped_vmem_limit_kib) to ask for */
  double shrink_factor;        /* size / limit: the factor the windows must shrink by; 0 when no limit is printed */
  bool likely_compiler_bug;    /* the instruction is a standard op, not a custom kernel */
  bool custom_kernel_unknown;  /* the log does not say whether it is one */
  bool limit_can_help;         /* the size is within the physical VMEM of some generation */
  uint64_t max_physical_bytes; /* the largest physical VMEM of any generation */
  /* A program-wide VMEM error: what to do, in order. */
  size_t nprogram;
  vmem_log_remedy program[VMEM_LOG_REMEDY_MAX];
} vmem_log_remedies;

/** The remedies for one explained error (zeroed for a kind that has none). */
VMEM_API vmem_status vmem_log_error_remedies(const vmem_log_error *e, vmem_log_remedies *out, vmem_error *err);
/** "largest", "spill", "compiler_bug", "scoped", "uncolor", "free"; NULL out of range. */
VMEM_API const char *vmem_log_remedy_kind_name(vmem_log_remedy_kind k);

/* ## Fitting block sizes
 *
 * A kernel spec's named block parameters ("bm", "bk", ...) are searched:
 * every combination of legal values, each evaluated for its exact scoped
 * footprint and a roofline time (docs/cost-model.md). A template compiles
 * the kernel once; evaluating one assignment allocates nothing.
 */
typedef struct vmem_template vmem_template;

typedef struct vmem_cost_options {
  double step_overhead_s; /* per grid step; < 0 = the default 0.35 us (no public source) */
  double flops;           /* the kernel's total FLOPs; <= 0 = the spec's */
} vmem_cost_options;

typedef struct vmem_eval {
  bool legal;                   /* every block obeys the Pallas block rules */
  uint64_t scoped_bytes;        /* windows + scratch, exact */
  uint64_t needed_bytes;        /* scoped + modelled: what must fit the limit, as check's verdict counts it (the
                               internal scratch is not in the compiler's figure: docs/fidelity.md) */
  uint64_t modelled_bytes;      /* the body's values (modelled; docs/kernels.md "Body values") */
  uint64_t modelled_high_bytes; /* their ceiling (docs/kernels.md "The ceiling"), as check's footprint */
  uint64_t ceiling_bytes;       /* scoped + modelled_high_bytes: a candidate fits for sure when this does */
  bool body_unread;             /* the body has values the model cannot size: no candidate fits for sure */
  uint64_t grid_steps;
  double hbm_bytes; /* moved between HBM and VMEM over the whole grid */
  double flops;
  double time_s; /* max(HBM time, compute time) + steps x overhead */
  bool compute_bound;
  double intensity;       /* flops / HBM byte */
  double edge_waste;      /* the largest share of an operand's blocks, over
                               the grid, that overhangs its array: 0 when
                               every block divides its array */
  uint64_t program_bytes; /* inputs colored to VMEM (buffers 0): their whole
                               arrays, program-scoped, outside the scoped limit */
} vmem_eval;

/** Gives operand `name` ("arg3" in MLIR, the spec name) its whole array,
 *  which MLIR does not carry: fit needs it for legal block sizes and the
 *  grid. The dtype must match the block's and the rank too. */
VMEM_API vmem_status vmem_kernel_set_array(vmem_kernel *k, const char *name, const char *shape, vmem_error *err);
/** Makes a kernel without parameters searchable: one parameter per grid
 *  axis ("g0", "g1", ...) for the block dimensions it drives (dimensions
 *  of one axis must agree in size to be tied; others stay fixed), and the
 *  grid bounds derived from the arrays. Needs every windowed operand's
 *  array. Returns the number of parameters made. */
VMEM_API vmem_status vmem_kernel_parametrize(vmem_kernel *k, size_t *made, vmem_error *err);
/* vmem_kernel_parametrize also infers a windowed operand's array when its
 * index map is a plain projection of grid axes (block x bound; the block
 * along a constant), lets a scratch buffer as large as a window's block
 * follow that window's parameters, and lets a body value's dim follow the
 * one parameter that has its size. */
/** Keeps scratch operand `name` at its shape in fit (before parametrize). */
VMEM_API vmem_status vmem_kernel_fix_scratch(vmem_kernel *k, const char *name, vmem_error *err);
/** Scratch operand i: the operand whose block it follows after
 *  parametrize, or -1 when it keeps its shape. */
VMEM_API int vmem_kernel_scratch_follows(const vmem_kernel *k, size_t i);
/** Operand i's block dims (bit d) that parametrize tied to a parameter by
 *  size alone: their index map is a constant or not analysable, and another
 *  window's dim at the same position has that size from the parameter. */
VMEM_API unsigned vmem_kernel_tied_dims(const vmem_kernel *k, size_t i);
/** Whether operand i's array was inferred from the grid and its window. */
VMEM_API bool vmem_kernel_array_inferred(const vmem_kernel *k, size_t i);

VMEM_API vmem_template *vmem_template_new(const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *plan,
                                          const vmem_cost_options *cost, const vmem_allocator *alloc, vmem_error *err);
VMEM_API void vmem_template_free(vmem_template *tpl);
VMEM_API size_t vmem_template_param_count(const vmem_template *tpl);
VMEM_API const char *vmem_template_param_name(const vmem_template *tpl, size_t i);
/** The value the kernel itself gives parameter i (a spec's "params"), so
 *  that evaluating these values reproduces vmem_kernel_footprint. */
VMEM_API int64_t vmem_template_param_value(const vmem_template *tpl, size_t i);
/** Evaluates one assignment (values[i] for parameter i). Allocates
 *  nothing and never fails: an illegal assignment has legal == false. */
VMEM_API void vmem_template_eval(const vmem_template *tpl, const int64_t *values, vmem_eval *out);
/** The inputs whose buffer count a search may choose (1 or 2): VMEM inputs
 *  that the kernel double-buffers without fixing the count. */
VMEM_API size_t vmem_template_buffer_choices(const vmem_template *tpl);
/** The operand index of buffer choice j. */
VMEM_API size_t vmem_template_buffer_choice_operand(const vmem_template *tpl, size_t j);
/** As vmem_template_eval, with buffers[j] for each buffer choice (NULL: as
 *  the kernel says): 2, 1 (pl.Buffered(1): its transfers are not overlapped
 *  with compute and add to the time), or 0 (colored to VMEM with
 *  pltpu.with_memory_space_constraint: no window, no transfer, its whole
 *  array in program_bytes; illegal when the array is not known). */
VMEM_API void vmem_template_eval_buffers(const vmem_template *tpl, const int64_t *values, const int *buffers,
                                         vmem_eval *out);
/** The grid's rank, and whether axis g may move in the grid's order: every
 *  output's block follows it, so the body carries no output state across it
 *  (an axis an output does not follow is a reduction whose accumulator needs
 *  its place, and keeps it). */
VMEM_API size_t vmem_template_grid_rank(const vmem_template *tpl);
VMEM_API bool vmem_template_axis_reorderable(const vmem_template *tpl, size_t g);
/** As vmem_template_eval_buffers, with the grid run in `order` (order[p]:
 *  the axis at position p, outermost first; NULL: the kernel's order). The
 *  order changes which blocks move along the innermost axis, and so the HBM
 *  bytes and what a single buffer costs; the footprint is the same. An order
 *  that is not a permutation, or that moves an axis that is not
 *  reorderable, is illegal. */
VMEM_API void vmem_template_eval_order(const vmem_template *tpl, const int64_t *values, const int *buffers,
                                       const int *order, vmem_eval *out);
/** The body's values the template charges (the planner's peak at the
 *  kernel's own blocks; each dim that follows a parameter scales with it),
 *  their notes, and the parameters each follows (at most cap names). */
VMEM_API size_t vmem_template_value_count(const vmem_template *tpl);
VMEM_API const char *vmem_template_value_note(const vmem_template *tpl, size_t i);
VMEM_API size_t vmem_template_value_follows(const vmem_template *tpl, size_t i, const char **names, size_t cap);
/** Why value v of parameter p breaks the Pallas block rules: the operand
 *  (*operand, its index) and the dim and rule, snprintf-style into buf; 0
 *  when it breaks none. */
VMEM_API size_t vmem_template_value_rule(const vmem_template *tpl, size_t p, int64_t v, size_t *operand, char *buf,
                                         size_t cap);
/** The legal values of parameter i by default: the divisors of every array
 *  dimension it sets that satisfy the block rules there. Writes at most
 *  cap values in increasing order; returns how many there are. */
VMEM_API size_t vmem_template_default_values(const vmem_template *tpl, size_t i, int64_t *out, size_t cap);
/** The values of parameter i when blocks may overhang the array (the last
 *  block padded on input, discarded on output): every size the block rules
 *  allow up to the largest array dimension it sets, in steps of 8 (coarser
 *  when that would be more than 4096 values). */
VMEM_API size_t vmem_template_padded_values(const vmem_template *tpl, size_t p, int64_t *out, size_t cap);

/* ## The block-size search (`fit`)
 *
 * Every combination of the template's parameter values (and, when asked,
 * of single buffering, coloring and grid orders) evaluated exactly: no
 * pruning, so the result is the exhaustive one by construction. */
#define VMEM_FIT_MAX_PARAMS 16
#define VMEM_FIT_MAX_VALUES 4096
#define VMEM_FIT_MAX_BUFFERED 8
#define VMEM_FIT_MAX_ORDERS 24
#define VMEM_FIT_MAX_CANDIDATES UINT64_C(4000000000)

typedef struct vmem_fit_options {
  /* Per template parameter, the values to try (at most VMEM_FIT_MAX_VALUES);
   * NULL: vmem_template_default_values, or vmem_template_padded_values
   * with allow_padding. */
  const int64_t *values[VMEM_FIT_MAX_PARAMS];
  size_t counts[VMEM_FIT_MAX_PARAMS];
  bool buffers;         /* also Buffered(1) on each input that can take it */
  bool color;           /* also each input colored (its whole array program-scoped, no window) */
  bool grid_order;      /* also every order of the reorderable grid axes (up to VMEM_FIT_MAX_ORDERS) */
  bool allow_padding;   /* keep blocks that overhang their arrays (else counted in `overhang`) */
  uint64_t limit_bytes; /* needed_bytes must be at most this */
  uint64_t room_bytes;  /* VMEM above the limit that colored arrays may take */
} vmem_fit_options;

/* What was searched. A candidate's index is a mixed-radix number: the
 * lowest digit (base norders) its grid order, the next nb (base nchoice)
 * its buffer counts, then the parameters, the last one lowest. */
typedef struct vmem_fit_space {
  size_t n;                             /* parameters */
  int64_t *values[VMEM_FIT_MAX_PARAMS]; /* owned by the result */
  size_t count[VMEM_FIT_MAX_PARAMS];
  size_t nb;     /* inputs whose buffer count is searched */
  int choice[3]; /* the counts tried for each: 2, then 1 and/or 0 */
  size_t nchoice;
  uint64_t room;                                         /* room_bytes */
  bool padding;                                          /* allow_padding */
  size_t rank, norders;                                  /* grid rank; orders tried (1: the kernel's) */
  bool want_orders;                                      /* grid_order was asked */
  int orders[VMEM_FIT_MAX_ORDERS][VMEM_KERNEL_MAX_RANK]; /* orders[i][p]: the axis at position p */
  uint64_t total;                                        /* candidates */
} vmem_fit_space;

typedef struct vmem_fit_candidate {
  uint64_t index;
  uint64_t needed_bytes;
  double time_s;
  uint64_t ceiling_bytes; /* needed with the body's values at their ceiling */
  bool at_risk;           /* fits with the body's estimate, not at its ceiling (check's at_risk) */
} vmem_fit_candidate;

typedef struct vmem_fit_result {
  vmem_fit_space space;
  uint64_t considered, legal;
  uint64_t overhang; /* legal but overhanging their arrays, left out without allow_padding */
  uint64_t over;     /* legal candidates over the limit */
  size_t fitting;
  size_t at_risk;          /* of those, how many fit only with the body's estimate (at the end of fit) */
  vmem_fit_candidate *fit; /* those that fit, those that fit at the body's ceiling first, each part fastest
                              first (ties: less VMEM, then index): fit[0] is the best */
  bool any_legal;
  vmem_fit_candidate smallest;     /* the smallest legal footprint (what a limit would need) */
  vmem_fit_candidate fastest_over; /* the fastest legal candidate over the limit */
  size_t nfront;
  vmem_fit_candidate *front; /* the Pareto front of those that fit: smallest first, each faster than every
                                smaller one (no other fitting candidate is both smaller and faster) */
  vmem_allocator alloc;      /* a copy of the one given (zero: malloc) */
} vmem_fit_result;

/** Searches every candidate. VMEM_ERR_RANGE when a parameter has no value
 *  to try (the message names it) or the candidates pass
 *  VMEM_FIT_MAX_CANDIDATES; VMEM_ERR_ARGUMENT for more values than the
 *  template has parameters. */
VMEM_API vmem_status vmem_fit(const vmem_template *tpl, const vmem_fit_options *opt, vmem_fit_result *out,
                              const vmem_allocator *alloc, vmem_error *err);
/** Candidate `index`'s parameter values (sp->n of them), its buffer counts
 *  (sp->nb, when buffers is not NULL) and its grid order (NULL: the
 *  kernel's own), as vmem_template_eval_order takes them. */
VMEM_API const int *vmem_fit_decode(const vmem_fit_space *sp, uint64_t index, int64_t *values, int *buffers);
/** vmem_template_eval_order on candidate `index`. */
VMEM_API void vmem_fit_eval(const vmem_template *tpl, const vmem_fit_space *sp, uint64_t index, vmem_eval *out);
VMEM_API void vmem_fit_free(vmem_fit_result *r);

/* Where a kernel's FLOPs come from (docs/cost-model.md). */
typedef enum vmem_flops_source {
  VMEM_FLOPS_NONE,   /* nothing says: every candidate is HBM-bound */
  VMEM_FLOPS_OPTION, /* the caller's vmem_cost_options.flops (--flops) */
  VMEM_FLOPS_GIVEN,  /* the spec's flops / flops_per_step, or the custom call's cost_estimate */
  VMEM_FLOPS_BODY    /* counted from the Mosaic body's ops, per step, times the grid (modelled) */
} vmem_flops_source;

typedef struct vmem_kernel_cost_report {
  vmem_eval eval; /* the roofline at the kernel's own blocks and grid */
  vmem_flops_source flops_source;
  double transcendentals; /* from the body, over the grid; 0 when not known */
  bool body_loops;        /* the body loops: ops inside were counted once per step */
} vmem_kernel_cost_report;

/** The cost model (the one `fit` ranks by) at the kernel as it is: grid
 *  steps, HBM bytes, FLOPs, roofline time, bound and intensity. */
VMEM_API vmem_status vmem_kernel_cost(const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *plan,
                                      const vmem_cost_options *cost, vmem_kernel_cost_report *out, vmem_error *err);
VMEM_API const char *vmem_flops_source_name(vmem_flops_source s);

/* ## The real compiler (docs/compiler.md)
 *
 * libtpu, the TPU compiler from PyPI, compiles ahead of time for a TPU
 * topology on a machine with no TPU, through the PJRT C API it exports.
 * vmemscope loads it at run time (it is never linked) and compiles in a
 * child process of its own: a crash or a compile past its deadline is a
 * status, and the caller's process never holds libtpu. Nothing here needs
 * Python. The figures are the compiler's own: for each Pallas kernel the
 * scoped VMEM it gave it (used_scoped_memory_configs), or the error it
 * gave, verbatim.
 */
typedef struct vmem_compiler vmem_compiler;

/** Finds and checks a libtpu: `path` when given, else $VMEMSCOPE_LIBTPU,
 *  else libtpu/libtpu.so in the site-packages of a Python environment
 *  ($VIRTUAL_ENV, then the prefix of each python3 on $PATH). The check
 *  loads it in a child process and reads its PJRT API version. NULL with
 *  VMEM_ERR_UNKNOWN when none is found (the message lists where it looked
 *  and how to install one), VMEM_ERR_UNSUPPORTED when the file is no
 *  libtpu or speaks another API version. */
VMEM_API vmem_compiler *vmem_compiler_open(const char *path, const vmem_allocator *alloc, vmem_error *err);
VMEM_API void vmem_compiler_close(vmem_compiler *c);
/** The libtpu file in use. */
VMEM_API const char *vmem_compiler_path(const vmem_compiler *c);
/** "libtpu 0.0.42.1, PJRT API 0.112" (the package version when the
 *  file lies in an installed package, else the API version alone). */
VMEM_API const char *vmem_compiler_version(const vmem_compiler *c);

typedef struct vmem_compile_options {
  const char *topology;          /* e.g. "v5e:2x2"; NULL: the target's (vmem_target_topology) */
  const vmem_target *target;     /* when topology is NULL; NULL: v5e */
  int64_t scoped_vmem_limit_kib; /* --xla_tpu_scoped_vmem_limit_kib; 0: the compiler's default */
  double timeout_seconds;        /* the compile is killed past this; <= 0: 300 */
} vmem_compile_options;

typedef enum vmem_compile_status {
  VMEM_COMPILE_OK,      /* compiled: the figures below are the compiler's */
  VMEM_COMPILE_REFUSED, /* the compiler returned an error (error_text, verbatim) */
  VMEM_COMPILE_CRASHED, /* the compiler's process ended abnormally (error_text: its last fatal line) */
  VMEM_COMPILE_TIMEOUT  /* killed at the deadline */
} vmem_compile_status;

/** A Pallas kernel (tpu_custom_call) of the compiled module, in module order. */
typedef struct vmem_compiled_kernel {
  const char *name;        /* the instruction's name in the compiled module */
  const char *computation; /* the computation holding it */
  bool has_figure;         /* the compiler named its used_scoped_memory_configs */
  uint64_t scoped_bytes;   /* their VMEM (memory space 1) bytes */
  const char *body;        /* custom_call_config.body as in the backend_config (base64 Mosaic bytecode), or "":
                              what pairs it with the kernel of the module compiled */
} vmem_compiled_kernel;

typedef struct vmem_compile_result {
  vmem_compile_status status;
  const char *error_text; /* REFUSED, CRASHED, TIMEOUT: the compiler's message, else "" */
  int error_code;         /* REFUSED: the PJRT (absl) status code; 8 is RESOURCE_EXHAUSTED */
  bool scoped_oom;        /* REFUSED with E1001: a kernel's scoped VMEM over its limit, as vmem_explain
                             reads the message (the figures below are its) */
  vmem_printed e1001_size, e1001_limit, e1001_excess; /* the E1001's printed figures; present when printed */
  const char *e1001_instruction;                      /* the instruction it names, or NULL */
  size_t nkernels;
  const vmem_compiled_kernel *kernels;
  bool has_stats; /* PJRT_Executable_GetCompiledMemoryStats answered */
  int64_t generated_code_bytes, argument_bytes, output_bytes, alias_bytes, temp_bytes;
  double compile_seconds; /* the compile call alone */
  double wall_seconds;    /* the child process, start to end (loading libtpu included) */
  const char *topology;   /* the topology compiled for */
} vmem_compile_result;

/** Compiles StableHLO or MLIR (text or bytecode: what jax.jit(f).lower(x)
 *  gives) for a topology, ahead of time. A compile that fails is a result
 *  (status REFUSED, CRASHED or TIMEOUT), not an error; errors are for what
 *  stops the compile from being tried (no process, bad options, an answer
 *  that cannot be read). */
VMEM_API vmem_status vmem_compile(vmem_compiler *c, const char *module, size_t len, const vmem_compile_options *opts,
                                  vmem_compile_result **out, vmem_error *err);
VMEM_API void vmem_compile_result_free(vmem_compile_result *r);
VMEM_API const char *vmem_compile_status_name(vmem_compile_status s);
/** The libtpu topology vmemscope compiles a target for ("v5e:2x2"): the
 *  smallest slice of that generation, as the oracle's records use. */
VMEM_API const char *vmem_target_topology(const vmem_target *t);

/* ---- the command line as a call ---------------------------------------------
 * What the `vmemscope` program does, for bindings (the Python package) and
 * for programs that want a command's exact output: every command, option,
 * JSON document (docs/json.md) and exit status is the same. These three live
 * in the command line's library, not in libvmemscope: link
 * libvmemscope-cli (its static archive beside libvmemscope.a, or
 * libvmemscope-cli.so, which has the library inside it). */

/** Runs `vmemscope argv[0] argv[1] ...` (argv[0] is the command, e.g.
 *  "check"), writing its standard output to out and its errors to err.
 *  Returns the exit status: 0 ok, 1 an OOM found or predicted, 2 bad usage
 *  or input. Reentrant and thread-safe; reads the environment as the
 *  program does (LIBTPU_INIT_ARGS, XLA_FLAGS, VMEMSCOPE_TARGET, NO_COLOR). */
VMEM_API int vmem_cli_run(int argc, const char *const *argv, FILE *out, FILE *err);
/** As vmem_cli_run, with both streams collected into NUL-terminated
 *  strings (*out, *err) that the caller frees with vmem_cli_free. */
VMEM_API int vmem_cli_capture(int argc, const char *const *argv, char **out, char **err);
VMEM_API void vmem_cli_free(char *s);

#ifdef __cplusplus
}
#endif

#endif /* VMEMSCOPE_H */
