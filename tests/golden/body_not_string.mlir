module @m {
  func.func @main(%a: tensor<99999999999999999999x8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.custom_call @tpu_custom_call(%a) {backend_config = "{\22custom_call_config\22: {\22body\22: 5}}"} : (tensor<99999999999999999999x8xf32>) -> tensor<8xf32>
  }
}
