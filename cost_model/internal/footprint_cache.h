// FootprintCache: one thread's isl context and the footprints it has computed (the elements
// of a buffer that one tile of a stage touches: the tile's image under the accesses, counted
// exactly for small tiles, by bounding box for big ones). Candidates share few distinct
// tiles, so most queries are hash lookups. Never share one between threads: isl objects
// belong to the context that made them, and a context is not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "cost_model/internal/isl_util.h"
#include "cost_model/internal/pipeline_facts.h"
#include "cost_model/internal/shared_footprints.h"
#include "scheduler/analysis.h"
#include "scheduler/isl_context.h"

namespace ktune::cost_model::internal {

// Tiles up to this many iterations are counted exactly; bigger ones use bounding boxes.
inline constexpr int64_t kExactCountLimit = 4096;

// Values of one stage dimension inside a tile: `count` values `stride` apart.
struct TilePiece {
  int64_t stride = 1;  // distance between consecutive values, >= 1
  int64_t count = 1;   // number of values, >= 1
};

// A tile of a stage: for each isl dimension (outermost first), the loop pieces that run
// inside it. A dimension without pieces is fixed to one value.
struct TileSpec {
  std::vector<std::vector<TilePiece>> dims;  // one entry per isl dimension of the stage
  int64_t points() const;                    // product of all piece counts
};

// An access path from a stage to a buffer, possibly through inlined Funcs:
// {u0} is use u0 of the stage; {u0, f1, u1} reads Func f1 (inlined) through use u0 and then
// f1's pure definition reads the buffer through its use u1; {-1} is the stage's own store.
using AccessPath = std::vector<int>;

class FootprintCache {
 public:
  // `shared` (may be null) is consulted before computing and receives what is computed.
  FootprintCache(const scheduler::Analysis& analysis, const PipelineFacts& facts, SharedFootprints* shared = nullptr);
  FootprintCache(const FootprintCache&) = delete;
  FootprintCache& operator=(const FootprintCache&) = delete;

  // A small id for the accesses of stage `stage_id` to `buffer` through `paths` (the same
  // arguments always give the same id).
  int group(int stage_id, int buffer, const std::vector<AccessPath>& paths);
  // The footprint of `tile` of the group's stage on the group's buffer.
  const Footprint& footprint(int group, const TileSpec& tile);

  // Forgets the memoized footprints when there are more than `max_entries`, which bounds
  // memory in long searches. Invalidates every Footprint reference handed out before.
  void trim(size_t max_entries);

  int64_t lookups() const { return lookups_; }  // footprint() calls
  int64_t misses() const { return misses_; }    // of which computed with isl here

 private:
  struct Group {
    std::vector<int64_t> key;        // identity independent of the thread (see group())
    int stage_id = 0;                // the stage whose iterations are tiled
    int buffer = 0;                  // the buffer touched
    std::vector<AccessPath> paths;   // the accesses, as given
    isl::map map;                    // union of the paths' relations, range cut to the buffer
    bool built = false;              // `map` has been made
    bool failed = false;             // isl could not build `map`
  };

  Footprint compute(Group& g, const TileSpec& tile);
  Footprint estimate(const Group& g, const TileSpec& tile) const;
  void build_map(Group& g);
  isl::map path_map(int stage_id, const AccessPath& path);
  isl::set domain(int stage_id);

  scheduler::IslContext isl_;  // first member: destroyed after every isl object below
  const scheduler::Analysis& analysis_;
  const PipelineFacts& facts_;
  SharedFootprints* shared_;  // other threads' results; may be null
  std::vector<std::unique_ptr<Group>> groups_;                        // by group id (isl objects cannot be copied while null)
  std::unordered_map<std::vector<int64_t>, int, KeyHash> group_ids_;  // group key -> id
  std::unordered_map<std::vector<int64_t>, Footprint, KeyHash> memo_;  // (group, tile) -> footprint
  std::unordered_map<int, isl::set> domains_;                          // stage id -> iterations
  int64_t lookups_ = 0;
  int64_t misses_ = 0;
  std::vector<int64_t> key_;  // scratch key, reused to avoid allocations
};

}  // namespace ktune::cost_model::internal
