// Every pipeline mode and operand kind in one kernel: scalar prefetch in
// SMEM, a Buffered(1) input, a double-buffered input with a padded bf16
// block, an ANY input, an output, VMEM and SMEM scratch, a DMA semaphore.
module attributes {stable_mosaic.version = 11 : i64} {
  func.func @modes_kernel(%arg0: i32, %arg1: i32, %arg2: memref<16xi32, #tpu.memory_space<smem>>, %arg3: memref<256x512xf32, #tpu.memory_space<vmem>>, %arg4: memref<129x200xbf16, #tpu.memory_space<vmem>>, %arg5: memref<4096x4096xf32, #tpu.memory_space<any>>, %arg6: memref<256x200xbf16, #tpu.memory_space<vmem>>, %arg7: memref<2x256x128xf32, #tpu.memory_space<vmem>>, %arg8: memref<64xi32, #tpu.memory_space<smem>>, %arg9: memref<2x!tpu.dma_semaphore, #tpu.memory_space<semaphore_mem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 4, 8>, scalar_prefetch = 1 : i64, scratch_operands = 3 : i64, tpu.core_type = #tpu.core_type<tc>, window_params = [{pipeline_mode = #tpu.pipeline_mode<synchronous>, transform_indices = @transform_0, window_bounds = array<i64: 256, 512>}, {transform_indices = @transform_1, window_bounds = array<i64: 1, 129, 200>}, {}, {pipeline_mode = #tpu.pipeline_mode<double_buffered>, transform_indices = @transform_3, window_bounds = array<i64: 256, 200>}]} {
    %c0 = arith.constant 0 : index
    %0 = vector.load %arg4[%c0, %c0] : memref<129x200xbf16, #tpu.memory_space<vmem>>, vector<129x200xbf16>
    tpu.vector_store %arg6[%c0, %c0], %1 {strides = array<i32>} : memref<256x200xbf16, #tpu.memory_space<vmem>>, vector<256x200xbf16>,
    return
  }
  func.func @transform_0(%arg0: i32, %arg1: i32, %arg2: memref<16xi32, #tpu.memory_space<smem>>) -> (i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    return %c0_i32, %c0_i32 : i32, i32
  }
  func.func @transform_1(%arg0: i32, %arg1: i32, %arg2: memref<16xi32, #tpu.memory_space<smem>>) -> (i32, i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %0 = memref.load %arg2[%arg1] : memref<16xi32, #tpu.memory_space<smem>>
    return %0, %arg0, %c0_i32 : i32, i32, i32
  }
  func.func @transform_3(%arg0: i32, %arg1: i32, %arg2: memref<16xi32, #tpu.memory_space<smem>>) -> (i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    return %arg0, %c0_i32 : i32, i32
  }
}
