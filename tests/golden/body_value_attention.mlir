// decoded from MLIR bytecode v0 (producer "MLIR23.0.0git") by vmemscope
module attributes {stable_mosaic.version = 11 : i64} {
  func.func @k(%arg0: i32, %arg1: memref<512x128xbf16, #tpu.memory_space<vmem>>, %arg2: memref<2048x128xbf16, #tpu.memory_space<vmem>>, %arg3: memref<2048x128xbf16, #tpu.memory_space<vmem>>, %arg4: memref<512x128xbf16, #tpu.memory_space<vmem>>) -> () attributes {dimension_semantics = [#tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 4>, scalar_prefetch = 0 : i64, scratch_operands = 0 : i64, tpu.core_type = #tpu.core_type<tc>, window_params = [{transform_indices = @transform_0, window_bounds = array<i64: 512, 128>}, {pipeline_mode = #tpu.pipeline_mode<synchronous>, transform_indices = @transform_1, window_bounds = array<i64: 2048, 128>}, {pipeline_mode = #tpu.pipeline_mode<synchronous>, transform_indices = @transform_2, window_bounds = array<i64: 2048, 128>}, {transform_indices = @transform_3, window_bounds = array<i64: 512, 128>}]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 0 : index
    %0 = "vector.load"(%arg1, %c0, %c1) : (memref<512x128xbf16, #tpu.memory_space<vmem>>, index, index) -> vector<512x128xbf16>
    %c2 = arith.constant 0 : index
    %c3 = arith.constant 0 : index
    %1 = "vector.load"(%arg2, %c2, %c3) : (memref<2048x128xbf16, #tpu.memory_space<vmem>>, index, index) -> vector<2048x128xbf16>
    %c4 = arith.constant dense<0.000000e+00> : vector<512x2048xf32>
    %2 = "tpu.matmul"(%0, %1, %c4) {dimension_numbers = #tpu.dot_dimension_numbers<[1], [1], [0], [0], [0, 0, 1, 0], [], []>, transpose_lhs = false, transpose_rhs = false} : (vector<512x128xbf16>, vector<2048x128xbf16>, vector<512x2048xf32>) -> vector<512x2048xf32>
    %c5 = arith.constant dense<-inf> : vector<512xf32>
    %3 = "vector.multi_reduction"(%2, %c5) {kind = #vector.kind<maximumf>, reduction_dims = array<i64: 1>} : (vector<512x2048xf32>, vector<512xf32>) -> vector<512xf32>
    %4 = "vector.shape_cast"(%3) : (vector<512xf32>) -> vector<512x1xf32>
    %5 = "vector.broadcast"(%4) : (vector<512x1xf32>) -> vector<512x2048xf32>
    %6 = "arith.subf"(%2, %5) {fastmath = #arith.fastmath<none>} : (vector<512x2048xf32>, vector<512x2048xf32>) -> vector<512x2048xf32>
    %7 = "math.exp"(%6) {fastmath = #arith.fastmath<none>} : (vector<512x2048xf32>) -> vector<512x2048xf32>
    %c6 = arith.constant dense<0.000000e+00> : vector<512xf32>
    %8 = "vector.multi_reduction"(%7, %c6) {kind = #vector.kind<add>, reduction_dims = array<i64: 1>} : (vector<512x2048xf32>, vector<512xf32>) -> vector<512xf32>
    %9 = "vector.shape_cast"(%8) : (vector<512xf32>) -> vector<512x1xf32>
    %10 = "vector.broadcast"(%9) : (vector<512x1xf32>) -> vector<512x2048xf32>
    %11 = "arith.divf"(%7, %10) {fastmath = #arith.fastmath<none>} : (vector<512x2048xf32>, vector<512x2048xf32>) -> vector<512x2048xf32>
    %12 = "arith.truncf"(%11) : (vector<512x2048xf32>) -> vector<512x2048xbf16>
    %c7 = arith.constant 0 : index
    %c8 = arith.constant 0 : index
    %13 = "vector.load"(%arg3, %c7, %c8) : (memref<2048x128xbf16, #tpu.memory_space<vmem>>, index, index) -> vector<2048x128xbf16>
    %c9 = arith.constant dense<0.000000e+00> : vector<512x128xf32>
    %14 = "tpu.matmul"(%12, %13, %c9) {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>, transpose_lhs = false, transpose_rhs = false} : (vector<512x2048xbf16>, vector<2048x128xbf16>, vector<512x128xf32>) -> vector<512x128xf32>
    %15 = "arith.truncf"(%14) : (vector<512x128xf32>) -> vector<512x128xbf16>
    %c10 = arith.constant 0 : index
    %c11 = arith.constant 0 : index
    %16 = "vector.load"(%arg4, %c10, %c11) : (memref<512x128xbf16, #tpu.memory_space<vmem>>, index, index) -> vector<512x128xbf16>
    tpu.vector_store %15, %arg4[%c10, %c11] {add = false, operandSegmentSizes = array<i32: 1, 1, 2, 0>, strides = array<i32>} : memref<512x128xbf16, #tpu.memory_space<vmem>>, vector<512x128xbf16>
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
    %c2 = arith.constant 0 : i32
    return %c0, %c1 : i32, i32
  }
  func.func @transform_3(%arg0: i32) -> (i32, i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 0 : i32
    return %arg0, %c0 : i32, i32
  }
}
