func.func @k(%arg0: i32, %arg1: i32, %arg2: memref<64x128xbf16, #tpu.memory_space<vmem>>, %arg3: memref<128x128xbf16, #tpu.memory_space<vmem>>, %arg4: memref<64x128xbf16, #tpu.memory_space<vmem>>, %arg5: memref<64x128xf32, #tpu.memory_space<vmem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 2, 1>, scalar_prefetch = 0 : i64, scratch_operands = 1 : i64, window_params = [{transform_indices = @t0, window_bounds = array<i64: 64, 128>}, {transform_indices = @t1, window_bounds = array<i64: 128, 128>}, {transform_indices = @t0, window_bounds = array<i64: 64, 128>}]} {
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<0.000000e+00> : vector<64x128xf32>
  %0 = arith.cmpi eq, %arg1, %c0_i32 : i32
  scf.if %0 {
    %d = vector.load %arg5[%c0, %c0] : memref<64x128xf32, #tpu.memory_space<vmem>>, vector<64x128xf32>
    tpu.vector_store %arg5[%c0, %c0], %cst {strides = array<i32>} : memref<64x128xf32, #tpu.memory_space<vmem>>, vector<64x128xf32>,
  } else {
  }
  %1 = vector.load %arg5[%c0, %c0] : memref<64x128xf32, #tpu.memory_space<vmem>>, vector<64x128xf32>
  %2 = arith.addf %1, %1 : vector<64x128xf32>
  tpu.vector_store %arg5[%c0, %c0], %2 {strides = array<i32>} : memref<64x128xf32, #tpu.memory_space<vmem>>, vector<64x128xf32>,
  return
}
func.func @t0(%arg0: i32, %arg1: i32) -> (i32, i32) {
  %c0_i32 = arith.constant 0 : i32
  return %arg0, %c0_i32 : i32, i32
}
func.func @t1(%arg0: i32, %arg1: i32) -> (i32, i32) {
  %c0_i32 = arith.constant 0 : i32
  return %arg1, %c0_i32 : i32, i32
}
