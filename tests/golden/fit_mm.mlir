// A matmul as pallas_call(debug=True) prints it, blocks (256, 512) x (512, 256).
module {
  func.func @mm_kernel(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<256x512xbf16, #tpu.memory_space<vmem>>, %arg4: memref<512x256xbf16, #tpu.memory_space<vmem>>, %arg5: memref<256x256xbf16, #tpu.memory_space<vmem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 8, 8, 4>, scalar_prefetch = 0 : i64, scratch_operands = 0 : i64, window_params = [{transform_indices = @transform_0, window_bounds = array<i64: 256, 512>}, {transform_indices = @transform_1, window_bounds = array<i64: 512, 256>}, {transform_indices = @transform_2, window_bounds = array<i64: 256, 256>}]} {
    %c0 = arith.constant 0 : index
    tpu.vector_store %arg5[%c0, %c0], %3 {strides = array<i32>} : memref<256x256xbf16, #tpu.memory_space<vmem>>, vector<256x256xbf16>,
    return
  }
  func.func @transform_0(%arg0: i32, %arg1: i32, %arg2: i32) -> (i32, i32) {
    return %arg0, %arg2 : i32, i32
  }
  func.func @transform_1(%arg0: i32, %arg1: i32, %arg2: i32) -> (i32, i32) {
    return %arg2, %arg1 : i32, i32
  }
  func.func @transform_2(%arg0: i32, %arg1: i32, %arg2: i32) -> (i32, i32) {
    return %arg0, %arg1 : i32, i32
  }
}
