// The op families, one file each; registry.cc concatenates their tables.
#pragma once

#include <vector>

#include "subgraphs/ops/op.h"

namespace ktune::subgraphs {

std::vector<OpDef> matmul_ops();         // matmul, batch_matmul
std::vector<OpDef> conv_ops();           // conv2d
std::vector<OpDef> elementwise_ops();    // unary, binary with broadcasting, bias_add
std::vector<OpDef> normalization_ops();  // softmax, layernorm, rmsnorm
std::vector<OpDef> reduction_ops();      // reduce_sum, reduce_mean, reduce_max
std::vector<OpDef> layout_ops();         // transpose
std::vector<OpDef> pool_ops();           // max_pool2d, avg_pool2d
std::vector<OpDef> stencil_ops();        // stencil
std::vector<OpDef> quantize_ops();       // cast, requantize

}  // namespace ktune::subgraphs
