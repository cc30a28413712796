#include "cost_model/internal/footprint_cache.h"

#include <algorithm>
#include <string>

namespace ktune::cost_model::internal {
namespace {

// Elements of buffer `b` in one cache line.
int64_t elements_per_line(const BufferFacts& b) { return std::max<int64_t>(1, kLineBytes / b.element_bytes); }

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// isl tuple name of a buffer, as scheduler/analysis.cc writes it.
std::string tuple_name(const BufferFacts& b) {
  return b.func >= 0 ? "F" + std::to_string(b.func) : "in_" + scheduler::loop_identifier(b.name);
}

std::string dim_name(size_t d) { return "d" + std::to_string(d); }

// Pages a box of a buffer touches: each row (dimension 0) on its own pages, or the whole
// address range when rows share pages, whichever is fewer.
int64_t pages_of(const Box& box, const BufferFacts& b) {
  int64_t rows = 1, first = 0, last = 0, stride = b.element_bytes;
  for (size_t d = 0; d < box.extent.size(); ++d) {
    if (d > 0) rows *= box.extent[d];
    const int64_t lo = d < b.lo.size() ? box.lo[d] - b.lo[d] : box.lo[d];
    first += lo * stride;
    last += (lo + box.extent[d] - 1) * stride;
    stride *= d < b.extent.size() ? b.extent[d] : box.extent[d];
  }
  const int64_t row_bytes = box.extent.empty() ? b.element_bytes : box.extent[0] * b.element_bytes;
  const int64_t by_rows = rows * ((row_bytes + kPageBytes - 1) / kPageBytes);
  const int64_t by_span = floor_div(last, kPageBytes) - floor_div(first, kPageBytes) + 1;
  return std::max<int64_t>(1, std::min(by_rows, by_span));
}

}  // namespace

int64_t TileSpec::points() const {
  int64_t n = 1;
  for (const auto& pieces : dims) {
    for (const TilePiece& p : pieces) n *= p.count;
  }
  return n;
}

FootprintCache::FootprintCache(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                               SharedFootprints* shared)
    : isl_(2'000'000), analysis_(analysis), facts_(facts), shared_(shared) {}

int FootprintCache::group(int stage_id, int buffer, const std::vector<AccessPath>& paths) {
  key_.clear();
  key_.push_back(stage_id);
  key_.push_back(buffer);
  for (const AccessPath& p : paths) {
    key_.push_back(static_cast<int64_t>(p.size()));
    key_.insert(key_.end(), p.begin(), p.end());
  }
  auto it = group_ids_.find(key_);
  if (it != group_ids_.end()) return it->second;
  const int id = static_cast<int>(groups_.size());
  auto g = std::make_unique<Group>();
  g->key = key_;
  g->stage_id = stage_id;
  g->buffer = buffer;
  g->paths = paths;
  groups_.push_back(std::move(g));
  group_ids_.emplace(key_, id);
  return id;
}

const Footprint& FootprintCache::footprint(int group_id, const TileSpec& tile) {
  ++lookups_;
  key_.clear();
  key_.push_back(group_id);
  for (const auto& pieces : tile.dims) {
    key_.push_back(static_cast<int64_t>(pieces.size()));
    for (const TilePiece& p : pieces) {
      key_.push_back(p.stride);
      key_.push_back(p.count);
    }
  }
  auto it = memo_.find(key_);
  if (it != memo_.end()) return it->second;
  std::vector<int64_t> key = key_;
  Group& g = *groups_[group_id];
  std::vector<int64_t> shared_key;
  if (shared_) {
    // Length-prefixed group key, then the tile: unambiguous across groups.
    shared_key.push_back(static_cast<int64_t>(g.key.size()));
    shared_key.insert(shared_key.end(), g.key.begin(), g.key.end());
    shared_key.insert(shared_key.end(), key.begin() + 1, key.end());
    if (const Footprint* fp = shared_->find(shared_key)) return memo_.emplace(std::move(key), *fp).first->second;
  }
  ++misses_;
  Footprint fp = compute(g, tile);
  if (shared_) shared_->insert(shared_key, fp);
  return memo_.emplace(std::move(key), std::move(fp)).first->second;
}

void FootprintCache::trim(size_t max_entries) {
  if (memo_.size() > max_entries) memo_.clear();
}

isl::set FootprintCache::domain(int stage_id) {
  auto it = domains_.find(stage_id);
  if (it != domains_.end()) return it->second;
  const auto [f, s] = facts_.stage_ids[stage_id];
  isl::set d(isl_.ctx(), analysis_.funcs[f].stages[s].domain);
  domains_.emplace(stage_id, d);
  return d;
}

isl::map FootprintCache::path_map(int stage_id, const AccessPath& path) {
  isl::ctx ctx = isl_.ctx();
  const auto [f, s] = facts_.stage_ids[stage_id];
  const scheduler::StageAnalysis& sa = analysis_.funcs[f].stages[s];
  if (path.size() == 1 && path[0] < 0) return isl::map(ctx, sa.write);
  isl::map m(ctx, sa.uses[path[0]].access);
  for (size_t i = 1; i + 1 < path.size(); i += 2) {
    const scheduler::StageAnalysis& inlined = analysis_.funcs[path[i]].stages.front();
    m = m.apply_range(isl::map(ctx, inlined.write).reverse()).apply_range(isl::map(ctx, inlined.uses[path[i + 1]].access));
  }
  return m;
}

void FootprintCache::build_map(Group& g) {
  g.built = true;
  try {
    isl_.reset_operations();
    isl::map all;
    for (const AccessPath& p : g.paths) {
      const isl::map m = path_map(g.stage_id, p);
      all = all.is_null() ? m : all.unite(m);
    }
    // Cut the range to the buffer: non-affine accesses are unbounded over-approximations.
    const BufferFacts& b = facts_.buffers[g.buffer];
    if (!b.extent.empty()) {
      std::string box = "{ " + tuple_name(b) + "[";
      std::string cons;
      for (size_t d = 0; d < b.extent.size(); ++d) {
        box += (d ? ", " : "") + dim_name(d);
        cons += (d ? " and " : "") + std::to_string(b.lo[d]) + " <= " + dim_name(d) + " <= " +
                std::to_string(b.lo[d] + b.extent[d] - 1);
      }
      box += "] : " + cons + " }";
      all = all.intersect_range(isl::set(isl_.ctx(), box));
    }
    g.map = all.coalesce();
  } catch (const isl::exception&) {
    g.failed = true;
  }
}

Footprint FootprintCache::estimate(const Group& g, const TileSpec& tile) const {
  Footprint fp;
  fp.from_isl = false;
  fp.elements = tile.points() * static_cast<int64_t>(g.paths.size());
  const BufferFacts& b = facts_.buffers[g.buffer];
  const int64_t cap = b.elements();
  if (cap > 0) fp.elements = std::min(fp.elements, cap);
  fp.lines = (fp.elements + elements_per_line(b) - 1) / elements_per_line(b);
  fp.pages = (fp.elements * b.element_bytes + kPageBytes - 1) / kPageBytes;
  return fp;
}

Footprint FootprintCache::compute(Group& g, const TileSpec& tile) {
  if (!g.built) build_map(g);
  if (g.failed) return estimate(g, tile);
  const StageFacts& st = facts_.stages[facts_.stage_ids[g.stage_id].first][facts_.stage_ids[g.stage_id].second];
  // The tile in the middle of the stage's iterations, away from boundary clamps.
  std::string vars, cons, exists;
  int nexists = 0;
  for (size_t d = 0; d < tile.dims.size(); ++d) {
    vars += (d ? ", " : "") + dim_name(d);
    const auto& pieces = tile.dims[d];
    int64_t span = 1;
    for (const TilePiece& p : pieces) span = std::max(span, p.stride * p.count);
    const int64_t lo = d < st.lo.size() ? st.lo[d] : 0;
    const int64_t extent = d < st.extent.size() ? st.extent[d] : 1;
    const int64_t base = lo + span * ((extent / span) / 2);
    std::string c;
    if (pieces.empty()) {
      c = dim_name(d) + " = " + std::to_string(base);
    } else if (pieces.size() == 1 && pieces[0].stride == 1) {
      c = std::to_string(base) + " <= " + dim_name(d) + " <= " + std::to_string(base + pieces[0].count - 1);
    } else {
      std::string sum = std::to_string(base);
      std::string bounds;
      for (const TilePiece& p : pieces) {
        const std::string e = "e" + std::to_string(nexists++);
        exists += (exists.empty() ? "" : ", ") + e;
        sum += " + " + std::to_string(p.stride) + "*" + e;
        bounds += " and 0 <= " + e + " <= " + std::to_string(p.count - 1);
      }
      c = dim_name(d) + " = " + sum + bounds;
    }
    cons += (d ? " and " : "") + c;
  }
  std::string text = "{ S[" + vars + "] : ";
  text += exists.empty() ? cons : "exists (" + exists + " : " + cons + ")";
  text += " }";
  try {
    isl_.reset_operations();
    const isl::set tile_set = isl::set(isl_.ctx(), text).intersect(domain(g.stage_id));
    const isl::set image = tile_set.apply(g.map);
    Footprint fp;
    const auto box = bounding_box(image);
    if (!box) {
      fp.elements = 0;
      fp.lines = 0;
      return fp;
    }
    fp.box = *box;
    fp.elements = box->points();
    if (tile.points() <= kExactCountLimit) {
      if (const auto n = count_points(image.coalesce())) fp.elements = *n;
    }
    const BufferFacts& b = facts_.buffers[g.buffer];
    if (box->lo.empty()) {  // a zero-dimensional buffer: one element
      fp.lines = 1;
      fp.pages = 1;
      return fp;
    }
    const int64_t origin = b.lo.empty() ? 0 : b.lo[0];
    const int64_t first = floor_div(box->lo[0] - origin, elements_per_line(b));
    const int64_t last = floor_div(box->lo[0] + box->extent[0] - 1 - origin, elements_per_line(b));
    int64_t lines = last - first + 1;
    for (size_t d = 1; d < box->extent.size(); ++d) lines *= box->extent[d];
    fp.lines = std::min(lines, fp.elements);
    fp.pages = std::min(pages_of(*box, b), fp.lines);
    return fp;
  } catch (const isl::exception&) {
    return estimate(g, tile);
  }
}

}  // namespace ktune::cost_model::internal
