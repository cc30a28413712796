#include "search/measurer.h"

#include "common/check.h"

namespace ktune::search {

void Measurer::submit(MeasureRound round) {
  KTUNE_CHECK(static_cast<int>(waiting_.size()) < depth()) << "more rounds submitted than the measurer's depth";
  waiting_.push_back(std::move(round));
}

void Measurer::collect(const std::atomic<int>& stop, const ResultFn& on_result) {
  KTUNE_CHECK(!waiting_.empty()) << "collect without a submitted round";
  const MeasureRound round = std::move(waiting_.front());
  waiting_.pop_front();
  measure(round, stop, on_result);
}

}  // namespace ktune::search
