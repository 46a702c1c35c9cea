// A kernel whose input's index map is not a plain projection of the grid
// (block i + 1): fit cannot infer that array and says which flag to pass.
func.func @shifted(%arg0: i32, %arg1: memref<256x512xf32, #tpu.memory_space<vmem>>, %arg2: memref<256x512xf32, #tpu.memory_space<vmem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<parallel>], iteration_bounds = array<i64: 4>, scalar_prefetch = 0 : i64, scratch_operands = 0 : i64, window_params = [{transform_indices = @t0, window_bounds = array<i64: 256, 512>}, {transform_indices = @t1, window_bounds = array<i64: 256, 512>}]} {
  %c0 = arith.constant 0 : index
  %0 = "vector.load"(%arg1, %c0, %c0) : (memref<256x512xf32, #tpu.memory_space<vmem>>, index, index) -> vector<256x512xf32>
  tpu.vector_store %0, %arg2[%c0, %c0] {strides = array<i32>} : memref<256x512xf32, #tpu.memory_space<vmem>>, vector<256x512xf32>
  return
}
func.func @t0(%arg0: i32) -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %arg0, %c1 : i32
  return %0, %c0 : i32, i32
}
func.func @t1(%arg0: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  return %arg0, %c0 : i32, i32
}
