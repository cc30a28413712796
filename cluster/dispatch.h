// The coordinator's bookkeeping of one distributed round: which measuring rank has which
// of the round's items, which results are still out, when the round is over. Plain data,
// tested without MPI.
//
//   Dispatch d(8, {1, 2});   // rank 1 gets items 0, 2, 4, 6; rank 2 gets 1, 3, 5, 7
//   d.complete(2, 3);        // true: item 3 was out at rank 2
//   d.finish(1);             // rank 1's batch is over; its items not reported are given up
#pragma once

#include <map>
#include <set>
#include <vector>

namespace ktune::cluster {

class Dispatch {
 public:
  // Deals items 0..items-1 to `ranks` in turn, so that the candidates the search ranks
  // first (the round's first items) are spread over every rank. No rank gets nothing
  // while another gets two.
  Dispatch(int items, const std::vector<int>& ranks);

  // The items dealt to `rank`, in order; empty for a rank that got none.
  const std::vector<int>& items_of(int rank) const;
  // The ranks that got at least one item.
  std::vector<int> busy_ranks() const;
  // Records that `rank` reported `item`. False when the item was not out at that rank (a
  // stray or repeated message, which the caller ignores).
  bool complete(int rank, int item);
  // `rank` says its batch is over: whatever of it was not reported is given up (skipped
  // for the time budget, or abandoned on a stop). Returns the items given up.
  std::vector<int> finish(int rank);
  // True once every rank that got items has finished.
  bool done() const { return open_.empty(); }
  // Items dealt and not reported yet.
  int outstanding() const;

 private:
  std::map<int, std::vector<int>> dealt_;     // rank -> items, in order
  std::map<int, std::set<int>> out_;          // rank -> items not reported yet
  std::set<int> open_;                        // ranks whose batch is not over
};

}  // namespace ktune::cluster
