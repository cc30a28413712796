#include "scheduler/vector_reduce.h"

#include <algorithm>

namespace ktune::scheduler {

bool add_vector_reduce(StageSchedule& st, const LoopNest& nest, int64_t factor) {
  const auto reduction = std::find_if(nest.loops.begin(), nest.loops.end(), [](const NestLoop& l) { return l.is_reduction; });
  if (reduction == nest.loops.end() || reduction->extent % factor != 0 || reduction->extent <= factor) return false;
  std::vector<std::string> order;
  for (const NestLoop& l : nest.loops) order.push_back(l.name);
  const auto parent = std::find_if(st.splits.begin(), st.splits.end(), [&](const LoopSplit& sp) { return sp.inner == reduction->name; });
  if (parent != st.splits.end() && (parent->factor % factor != 0 || parent->factor <= factor)) return false;
  const std::string loop = parent == st.splits.end() ? reduction->name : parent->loop;
  const LoopSplit piece{loop, loop_piece(loop, "_vo"), loop_piece(loop, "_vr"), factor};
  if (parent == st.splits.end()) {
    std::replace(order.begin(), order.end(), loop, piece.outer);
    st.splits.push_back(piece);
  } else {
    parent->loop = piece.outer;
    parent->factor /= factor;
    st.splits.insert(parent, piece);
  }
  order.insert(order.begin(), piece.inner);  // innermost, inside the pure vector
  st.order = order;
  st.vector_reduce = piece.inner;
  return true;
}

int64_t dot_product_factor(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target) {
  if (stage.stage == 0 || target.is_gpu() || target.halide_target.find("avx512_sapphirerapids") == std::string::npos) return 0;
  // u8 x i8 in fours (vpdpbusd), bf16 in pairs (vdpbf16ps); nothing else mixes.
  enum class Operand { kNone, kByte, kBf16 };
  Operand kind = Operand::kNone;
  int operands = 0;
  for (const ProducerUse& use : stage.uses) {
    if (use.name == func.name) continue;
    const Operand k = use.element_bytes == 1 ? Operand::kByte : use.bfloat ? Operand::kBf16 : Operand::kNone;
    if (k == Operand::kNone || (kind != Operand::kNone && k != kind)) return 0;
    kind = k;
    ++operands;
  }
  if (operands < 2) return 0;
  return kind == Operand::kByte ? 4 : 2;
}

}  // namespace ktune::scheduler
