/*
 * kernel.h — the Pallas/Mosaic kernel model (module prefix: kernel_).
 * Filled by the MLIR reader (src/mosaic/) and the JSON spec reader
 * (spec.c); read by the footprint planner (src/scoped/).
 */
#ifndef VMEM_KERNEL_H
#define VMEM_KERNEL_H

#include "../shape/shape.h"

/* A named block parameter of a spec ("bm"), with its value. */
typedef struct kernel_param {
  const char *name;
  int64_t value;
} kernel_param;

/* Per operand, beside the public vmem_operand (whose block_param says
 * which parameter sets each block dimension, so that remedies and fit can
 * vary them). */
typedef struct kernel_operand {
  vmem_operand pub;
  vmem_shape *array;        /* pub.array, writable */
  size_t offset;            /* in the source text, for messages */
  bool array_inferred;      /* the array is grid x window (vmem_kernel_parametrize) */
  bool fixed;               /* scratch that keeps its shape in fit (--fixed-scratch) */
  int follows;              /* scratch in fit: 1 + the operand whose block it follows; 0 when fixed */
  unsigned tied;            /* block dims tied to a parameter by size alone (bit d; vmem_kernel_parametrize) */
  bool written_first;       /* scratch the body writes whole before it reads it, every step (src/mosaic/forward.c) */
  unsigned written_axes;    /* ... given these grid axes keep extent 1 (bit a): the conditions it folded */
  const char *forward_note; /* ... said so, for its line */
} kernel_operand;

/* A vector value of the kernel body that the body model may charge
 * (read by src/mosaic/body.c, charged by src/scoped/body_model.c; not
 * exact, docs/kernels.md "Body values"). Lines are the body's, 1-based. */
typedef enum kernel_value_kind {
  VALUE_KEPT,       /* computed, used again after a use that needs all of it: kept whole in VMEM */
  VALUE_MXU_LHS,    /* a matmul's lhs, staged for the MXU during the matmul */
  VALUE_MXU_RHS,    /* a matmul's rhs computed in the body (not a load): whole at the matmul */
  VALUE_BF16_F32,   /* a bf16 arithmetic result, computed in f32 where the VPU has no bf16 */
  VALUE_ROW_BCAST,  /* a row broadcast down the sublanes: one tile of rows of it, held to the body's end (v2-v4) */
  VALUE_RELAYOUT,   /* one-row tiles relaid out to native ones: a fixed charge, once per kernel, the whole body */
  VALUE_TRANSPOSE,  /* a 16-bit transpose: one 128-lane column strip of its result, less what the registers hold */
  VALUE_TRANSPOSE8, /* an 8-bit transpose: its result, which v2-v4 transpose in a wider type */
  VALUE_LANE_BCAST, /* a lane broadcast stored into one-row tiles: a vreg a row (v2-v4) */
  VALUE_LIVE,       /* computed, live where the body's computed values hold the most at once: the
                       ceiling's (src/scoped/body_model.c), never the estimate's */
  VALUE_SHARED,     /* computed, read by two or more ops none of which needs all of it: streamed by the
                       estimate, held whole over its lines by the ceiling */
  VALUE_ACROSS,     /* a shared value read before a vector reduction and after it (a norm's centred or
                       summed rows): held while the reduction completes; the ceiling adds the reduction's
                       result in vreg tiles beside it */
  VALUE_MXU_RHS32,  /* a matmul's 32-bit rhs, loaded: the MXU takes it in bf16 parts; the ceiling's alone */
  VALUE_WIDEN8      /* a strip of an 8-bit value widened to 32 bits: the ceiling's alone */
} kernel_value_kind;

typedef struct kernel_modelled {
  vmem_shape *shape; /* as charged (VALUE_BF16_F32: already f32) */
  const char *note;  /* "%4 = tpu.matmul, line 12" */
  kernel_value_kind kind;
  size_t start, end;               /* the lines it is live over (loops extend it) */
  int64_t contracted;              /* VALUE_MXU_LHS: the matmul's K */
  int64_t columns;                 /* VALUE_MXU_LHS: the matmul's N (its result's last dim) */
  int columns_param;               /* the parameter N follows, or -1 */
  int param[VMEM_KERNEL_MAX_RANK]; /* the parameter each dim follows in fit, or -1 */
  int contracted_param;            /* the parameter K follows, or -1 */
  size_t repeats;                  /* VALUE_KEPT: values alike in the body (same op and type; 0 or 1: none) */
  size_t group;                    /* 1 + the index of the first of them in k->modelled; 0 when alone */
  unsigned relayout;               /* VALUE_RELAYOUT: what relays out one-row tiles (RELAYOUT_OPS,
                                      RELAYOUT_BROADCAST), each charged where a target fact says */
  bool beside;                     /* VALUE_BF16_F32: a second copy at its line (the registers spare none of it) */
  bool gathered;                   /* VALUE_KEPT: a tpu.concatenate's result, kept for its op alone */
  const char *op;                  /* VALUE_KEPT: the op that makes it ("tpu.matmul"), for its rule's domain */
  bool declared;                   /* VALUE_KEPT: declared by a kernel spec: sized by its author, not a rule */
} kernel_modelled;

/* What the body walk learns of a body beyond its values (src/mosaic/body.c),
 * for the body model's estimate and ceiling (src/scoped/body_model.c, and
 * fit's template, which keeps a copy). */
typedef struct kernel_body_facts {
  size_t unrolled;           /* the most kept values alike (the copies a Python loop unrolls); 0 or 1: none */
  const char *unrolled_note; /* what those copies are, for the line that charges them */
  vmem_dtype unrolled_dt;    /* ... one copy's op, type and dims (the kept value alike in each) */
  const char *unrolled_op;
  size_t unrolled_rank;
  int64_t unrolled_dims[VMEM_KERNEL_MAX_RANK];
  size_t copies; /* the copies the ceiling counts: `unrolled`, or the most shared values alike
                                (VALUE_SHARED), whichever is more */
  bool rules;    /* some rule recorded a value (any kind but VALUE_LIVE and VALUE_SHARED) */
  bool reduces;  /* it reduces a vector (vector.multi_reduction): the ceiling's spill margin */
  bool holds;    /* some computed value cannot stream (read twice, or needing or made by a whole op):
                                the ceiling then holds every live value (VALUE_LIVE) at once */
  size_t unread; /* vector results the walk could not size (a dynamic or unknown type) or had no
                                room for: left out of the estimate and the ceiling, and said so */
} kernel_body_facts;

struct vmem_kernel {
  arena a;
  const char *name;
  size_t grid_rank;
  int64_t grid[VMEM_KERNEL_MAX_RANK];
  int grid_param[VMEM_KERNEL_MAX_RANK];    /* -1, or the parameter that is the bound */
  bool grid_derived[VMEM_KERNEL_MAX_RANK]; /* the bound follows the blocks (spec without "grid") */
  const char *grid_axis_name[VMEM_KERNEL_MAX_RANK];
  const char *semantics[VMEM_KERNEL_MAX_RANK];
  size_t nops;
  kernel_operand *ops;
  size_t nparams;
  kernel_param *params;
  size_t nmodelled;
  kernel_modelled *modelled;
  int64_t vmem_limit;          /* -1 when not set */
  int64_t internal_scratch;    /* -1 when not set */
  bool roles_inferred;         /* MLIR: inputs/outputs told apart by stores */
  double flops;                /* spec "flops": the kernel's total; < 0 when not given */
  const char *flops_per_step;  /* spec "flops_per_step": an expression of params, or NULL */
  bool body_known;             /* MLIR: the body was scanned (src/mosaic/body.c) */
  bool body_loops;             /* ... and has loops, whose ops were counted once */
  double body_flops;           /* ... its FLOPs per grid step */
  double body_transcendentals; /* ... its transcendentals per grid step */
  kernel_body_facts facts;     /* ... what the body model's estimate and ceiling need beside its values */
  vmem_shape *result;
};

/* What relays out one-row tiles in a body (src/mosaic/body.c): reductions,
 * matmuls, transposes and stores (relayout_row_tiles), or row broadcasts of
 * a loaded row and narrowings to bf16 (relayout_row_broadcast). */
enum { RELAYOUT_OPS = 1u << 0, RELAYOUT_BROADCAST = 1u << 1 };

vmem_kernel *kernel_new(const vmem_allocator *alloc);
/* Whether a window whose block indices follow index_axis stays put over
 * the grid: each index a constant or an axis of extent 1. Such a window
 * has one buffer (kernel.c, single_buffer_fixed_windows; fit's template
 * asks per candidate grid). */
bool kernel_window_never_moves(const int *index_axis, size_t rank, const int64_t *grid, size_t grid_rank);
/* A reader's last step: the kernel when it read (clearing err), else NULL
 * with the reader's error copied out and the kernel freed. */
vmem_kernel *kernel_finish(vmem_kernel *k, bool ok, const vmem_error *local, vmem_error *err);
/* A fresh array shape dtype[dims] in the kernel's arena. */
vmem_shape *kernel_shape(vmem_kernel *k, vmem_dtype t, const int64_t *dims, size_t rank);

#endif
