module attributes {stable_mosaic.version = 11 : i64} {
  func.func @k(%arg0: i32, %arg1: memref<1024x1024xf32, #tpu.memory_space<vmem>>, %arg2: memref<1024x1024xf32, #tpu.memory_space<vmem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 4>, scalar_prefetch = 0 : i64, scratch_operands = 0 : i64, tpu.core_type = #tpu.core_type<tc>, window_params = [{transform_indices = @transform_0, window_bounds = array<i64: 1024, 1024>}, {transform_indices = @transform_1, window_bounds = array<i64: 1024, 1024>}]} {
    %c0 = arith.constant 0 : index
    %0 = vector.load %arg1[%c0, %c0] : memref<1024x1024xf32, #tpu.memory_space<vmem>>, vector<1024x1024xf32>
    %1 = "arith.mulf"(%0, %0) : (vector<1024x1024xf32>, vector<1024x1024xf32>) -> vector<1024x1024xcomplex<f32>>
    vector.store %0, %arg2[%c0, %c0] : memref<1024x1024xf32, #tpu.memory_space<vmem>>, vector<1024x1024xf32>
    return
  }
  func.func @transform_0(%arg0: i32) -> (i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    return %arg0, %c0_i32 : i32, i32
  }
  func.func @transform_1(%arg0: i32) -> (i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    return %arg0, %c0_i32 : i32, i32
  }
}
