#include "scheduler/channel_loops.h"

namespace ktune::scheduler {

void loops_past_rows(const StageAnalysis& stage, std::vector<std::string>& channels, std::vector<std::string>& others) {
  for (size_t d = 2; const LoopAnalysis* l = stage.pure_loop(d); ++d) {
    (l->extent <= kMaxChannels ? channels : others).push_back(l->name);
  }
}

std::vector<std::string> unrolled_channels(const StageAnalysis& stage, const std::vector<std::string>& channels,
                                           StageSchedule& st) {
  std::vector<std::string> pieces;
  for (const std::string& c : channels) {
    const LoopAnalysis* loop = stage.find(c);
    if (!loop || loop->extent < 2) {
      pieces.push_back(c);
      continue;
    }
    st.splits.push_back({c, loop_piece(c, "_o"), loop_piece(c, "_i"), loop->extent});
    pieces.push_back(loop_piece(c, "_i"));
    pieces.push_back(loop_piece(c, "_o"));
    st.unroll.push_back(loop_piece(c, "_i"));
  }
  return pieces;
}

}  // namespace ktune::scheduler
