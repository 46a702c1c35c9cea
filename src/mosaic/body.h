/*
 * body.h — what a Mosaic kernel body's ops say about its work (module
 * prefix: body_): FLOPs and transcendentals per grid step, read from the
 * MLIR text of the kernel func's body (mlir_text.c, and bytecode through
 * bc_print.c's text). Used by the cost model (src/tune/template.c).
 */
#ifndef VMEM_MOSAIC_BODY_H
#define VMEM_MOSAIC_BODY_H

#include "../kernel/kernel.h"

typedef struct body_cost {
  double flops;           /* per grid step: 2·M·N·K per matmul, one per element per vector arith op */
  double transcendentals; /* per grid step: one per element of a vector math.exp, tanh, ... */
  size_t matmuls;         /* tpu.matmul and vector.contract ops seen */
  bool loops;             /* scf.for / scf.while in the body: ops inside are counted once */
} body_cost;

/* One pass over body[0..len) (one op per line, as MLIR prints): its work
 * per grid step into cost, and the values the body model may charge (kept
 * whole, matmul lhs operands, bf16 arithmetic) into k->modelled; false
 * only when out of memory. */
bool body_read(vmem_kernel *k, const char *body, size_t len, body_cost *cost);

/* Marks each VMEM scratch operand that the body writes whole before any
 * read, in code that runs every step (src/mosaic/forward.c): the compiler
 * forwards its stores and allocates none. False only when out of memory. */
bool body_forwarded_scratch(vmem_kernel *k, const char *body, size_t len);

/* An MLIR element type name ("bf16", "f8E4M3FN") as a dtype (mlir_text.c). */
bool mlir_elem_type(const char *s, size_t n, vmem_dtype *out);

#endif
