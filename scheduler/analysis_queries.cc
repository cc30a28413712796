// The queries of scheduler/analysis.h on an Analysis and its Funcs, stages and loops, and
// the loop names derived from a loop (loop_identifier, loop_piece).
#include "scheduler/analysis.h"

#include <algorithm>
#include <cctype>

namespace ktune::scheduler {

const LoopAnalysis* StageAnalysis::find(const std::string& loop) const {
  for (const LoopAnalysis& l : loops) {
    if (l.name == loop) return &l;
  }
  return nullptr;
}

const LoopAnalysis* StageAnalysis::pure_loop(size_t n) const {
  size_t seen = 0;
  for (const LoopAnalysis& l : loops) {
    if (l.is_reduction) continue;
    if (seen++ == n) return &l;
  }
  return nullptr;
}

const LoopAnalysis* StageAnalysis::first_reduction() const {
  for (const LoopAnalysis& l : loops) {
    if (l.is_reduction) return &l;
  }
  return nullptr;
}

int StageAnalysis::reduction_loop_count() const {
  return static_cast<int>(std::count_if(loops.begin(), loops.end(), [](const LoopAnalysis& l) { return l.is_reduction; }));
}

bool has_loop(const std::vector<std::string>& loops, const std::string& loop) {
  return std::find(loops.begin(), loops.end(), loop) != loops.end();
}

int StageAnalysis::native_lanes(const TargetInfo& target) const {
  return std::max(1, target.vector_lanes * 32 / std::max(8, value_bits));
}

int StageAnalysis::max_vector_width(const TargetInfo& target) const { return std::max(64, 4 * native_lanes(target)); }

int64_t StageAnalysis::pure_iterations() const {
  int64_t n = 1;
  for (const LoopAnalysis& l : loops) {
    if (!l.is_reduction) n *= l.extent;
  }
  return n;
}

int FuncAnalysis::single_consumer() const {
  int only = -1;
  for (const auto& [func, stage] : consumers) {
    if (only >= 0 && only != func) return -1;
    only = func;
  }
  return only;
}

const FuncAnalysis* Analysis::find(const std::string& name) const {
  const int i = index_of(name);
  return i < 0 ? nullptr : &funcs[i];
}

int Analysis::index_of(const std::string& name) const {
  for (size_t i = 0; i < funcs.size(); ++i) {
    if (funcs[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const InputAnalysis* Analysis::find_input(const std::string& name) const {
  for (const InputAnalysis& in : inputs) {
    if (in.name == name) return &in;
  }
  return nullptr;
}

std::string loop_piece(const std::string& loop, const char* suffix) { return loop_identifier(loop) + suffix; }

std::string loop_identifier(const std::string& loop) {
  std::string s = loop;
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return s;
}

}  // namespace ktune::scheduler
