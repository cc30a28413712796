#include "cluster/dispatch.h"

#include <cstddef>

namespace ktune::cluster {

Dispatch::Dispatch(int items, const std::vector<int>& ranks) {
  if (ranks.empty()) return;
  for (int i = 0; i < items; ++i) {
    const int rank = ranks[static_cast<size_t>(i) % ranks.size()];
    dealt_[rank].push_back(i);
    out_[rank].insert(i);
    open_.insert(rank);
  }
}

const std::vector<int>& Dispatch::items_of(int rank) const {
  static const std::vector<int> kNone;
  const auto it = dealt_.find(rank);
  return it == dealt_.end() ? kNone : it->second;
}

std::vector<int> Dispatch::busy_ranks() const {
  std::vector<int> ranks;
  for (const auto& [rank, items] : dealt_) ranks.push_back(rank);
  return ranks;
}

bool Dispatch::complete(int rank, int item) {
  const auto it = out_.find(rank);
  return it != out_.end() && open_.count(rank) && it->second.erase(item) == 1;
}

std::vector<int> Dispatch::finish(int rank) {
  std::vector<int> given_up;
  if (!open_.erase(rank)) return given_up;
  given_up.assign(out_[rank].begin(), out_[rank].end());
  out_[rank].clear();
  return given_up;
}

int Dispatch::outstanding() const {
  int n = 0;
  for (const auto& [rank, items] : out_) n += static_cast<int>(items.size());
  return n;
}

}  // namespace ktune::cluster
