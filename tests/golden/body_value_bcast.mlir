// decoded from MLIR bytecode v0 (producer "MLIR23.0.0git") by vmemscope
module attributes {stable_mosaic.version = 11 : i64} {
  func.func @k(%arg0: i32, %arg1: memref<1024x1024xf32, #tpu.memory_space<vmem>>, %arg2: memref<8x1024xf32, #tpu.memory_space<vmem>>, %arg3: memref<1024x1024xf32, #tpu.memory_space<vmem>>) -> () attributes {dimension_semantics = [#tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 4>, scalar_prefetch = 0 : i64, scratch_operands = 0 : i64, tpu.core_type = #tpu.core_type<tc>, window_params = [{transform_indices = @transform_0, window_bounds = array<i64: 1024, 1024>}, {pipeline_mode = #tpu.pipeline_mode<synchronous>, transform_indices = @transform_1, window_bounds = array<i64: 8, 1024>}, {transform_indices = @transform_2, window_bounds = array<i64: 1024, 1024>}]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 0 : index
    %0 = "vector.load"(%arg1, %c0, %c1) : (memref<1024x1024xf32, #tpu.memory_space<vmem>>, index, index) -> vector<1024x1024xf32>
    %c2 = arith.constant 0 : index
    %c3 = arith.constant 0 : index
    %1 = "vector.load"(%arg2, %c2, %c3) : (memref<8x1024xf32, #tpu.memory_space<vmem>>, index, index) -> vector<1x1024xf32>
    %2 = "vector.broadcast"(%1) : (vector<1x1024xf32>) -> vector<1024x1024xf32>
    %3 = "arith.addf"(%0, %2) {fastmath = #arith.fastmath<none>} : (vector<1024x1024xf32>, vector<1024x1024xf32>) -> vector<1024x1024xf32>
    %c4 = arith.constant 0 : index
    %c5 = arith.constant 0 : index
    %4 = "vector.load"(%arg3, %c4, %c5) : (memref<1024x1024xf32, #tpu.memory_space<vmem>>, index, index) -> vector<1024x1024xf32>
    tpu.vector_store %3, %arg3[%c4, %c5] {add = false, operandSegmentSizes = array<i32: 1, 1, 2, 0>, strides = array<i32>} : memref<1024x1024xf32, #tpu.memory_space<vmem>>, vector<1024x1024xf32>
    return
  }
  func.func @transform_0(%arg0: i32) -> (i32, i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 0 : i32
    return %arg0, %c0 : i32, i32
  }
  func.func @transform_1(%arg0: i32) -> (i32, i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 0 : i32
    %c2 = arith.constant 0 : i32
    return %c0, %c1 : i32, i32
  }
  func.func @transform_2(%arg0: i32) -> (i32, i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 0 : i32
    return %arg0, %c0 : i32, i32
  }
}
