#include "scheduler/schedule.h"

#include <cstdint>

#include "common/error.h"
#include "common/hash.h"

namespace ktune::scheduler {
namespace {

using nlohmann::json;

// Ordered JSON so the canonical text does not depend on insertion order.
using ordered = nlohmann::ordered_json;

ordered strings(const std::vector<std::string>& v) {
  ordered a = ordered::array();
  for (const std::string& s : v) a.push_back(s);
  return a;
}

// A JSON value as quoted in an error, cut to a readable length.
std::string shown(const json& j) {
  std::string text = j.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

[[noreturn]] void fail(const std::string& where, const std::string& path, const std::string& msg) {
  throw UserError(format_user_error(where, path, msg));
}

const json& field(const json& obj, const std::string& key, const std::string& where, const std::string& path) {
  if (!obj.is_object()) fail(where, path, "expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) fail(where, path, "missing required field \"" + key + "\"");
  return *it;
}

std::string string_field(const json& obj, const std::string& key, const std::string& where,
                         const std::string& path, bool required = true) {
  if (!required && !obj.contains(key)) return "";
  const json& j = field(obj, key, where, path);
  if (!j.is_string()) fail(where, path + "." + key, "expected a string, found " + shown(j));
  return j.get<std::string>();
}

int64_t int_field(const json& obj, const std::string& key, const std::string& where, const std::string& path) {
  const json& j = field(obj, key, where, path);
  // Every integer of a schedule (stage indices, split factors) is an int in Halide.
  if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<uint64_t>() > INT32_MAX) ||
      j.get<int64_t>() > INT32_MAX || j.get<int64_t>() < INT32_MIN) {
    fail(where, path + "." + key, "expected an integer that fits in 32 bits, found " + shown(j));
  }
  return j.get<int64_t>();
}

// An optional boolean field; absent is false.
bool bool_field(const json& obj, const std::string& key, const std::string& where, const std::string& path) {
  if (!obj.contains(key)) return false;
  const json& j = obj.at(key);
  if (!j.is_boolean()) fail(where, path + "." + key, "expected true or false, found " + shown(j));
  return j.get<bool>();
}

std::vector<std::string> string_list(const json& obj, const std::string& key, const std::string& where,
                                     const std::string& path) {
  std::vector<std::string> out;
  if (!obj.contains(key)) return out;
  const json& j = obj.at(key);
  if (!j.is_array()) fail(where, path + "." + key, "expected an array of loop names, found " + shown(j));
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string()) fail(where, path + "." + key + "[" + std::to_string(i) + "]", "expected a string");
    out.push_back(j[i].get<std::string>());
  }
  return out;
}

void check_keys(const json& obj, const std::vector<std::string>& allowed, const std::string& where,
                const std::string& path) {
  if (!obj.is_object()) fail(where, path, "expected an object, found " + shown(obj));
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const std::string& a : allowed) ok |= a == it.key();
    if (!ok) fail(where, path + "." + it.key(), "unknown field \"" + it.key() + "\"");
  }
}

ordered splits_json(const std::vector<LoopSplit>& splits) {
  ordered out = ordered::array();
  for (const LoopSplit& sp : splits) {
    ordered spj;
    spj["loop"] = sp.loop;
    spj["outer"] = sp.outer;
    spj["inner"] = sp.inner;
    spj["factor"] = sp.factor;
    // Only when not the default, so that earlier schedules keep their text (and hash).
    if (sp.tail != Tail::kGuard) spj["tail"] = to_string(sp.tail);
    out.push_back(spj);
  }
  return out;
}

ordered gpu_json(const GpuMapping& gpu) {
  ordered g;
  if (!gpu.blocks.empty()) g["blocks"] = strings(gpu.blocks);
  if (!gpu.threads.empty()) g["threads"] = strings(gpu.threads);
  if (!gpu.memory.empty()) g["memory"] = gpu.memory;
  return g;
}

// The "splits" array of `obj` at `path` (absent: none).
std::vector<LoopSplit> splits_field(const json& obj, const std::string& where, const std::string& path) {
  std::vector<LoopSplit> out;
  if (!obj.contains("splits")) return out;
  const json& splits = obj["splits"];
  if (!splits.is_array()) fail(where, path + ".splits", "expected an array");
  for (size_t m = 0; m < splits.size(); ++m) {
    const std::string pp = path + ".splits[" + std::to_string(m) + "]";
    check_keys(splits[m], {"loop", "outer", "inner", "factor", "tail"}, where, pp);
    LoopSplit split{string_field(splits[m], "loop", where, pp), string_field(splits[m], "outer", where, pp),
                    string_field(splits[m], "inner", where, pp), int_field(splits[m], "factor", where, pp)};
    if (split.factor < 2) fail(where, pp + ".factor", "expected a factor >= 2, found " + std::to_string(split.factor));
    const std::string tail = string_field(splits[m], "tail", where, pp, false);
    if (tail == "shift_inwards") {
      split.tail = Tail::kShiftInwards;
    } else if (tail == "round_up") {
      split.tail = Tail::kRoundUp;
    } else if (!tail.empty() && tail != "guard") {
      fail(where, pp + ".tail", "expected guard, shift_inwards or round_up, found \"" + tail + "\"");
    }
    out.push_back(split);
  }
  return out;
}

// The "gpu" object of `obj` at `path` (absent: empty); `memory` says whether it may set memory.
GpuMapping gpu_field(const json& obj, const std::string& where, const std::string& path, bool memory) {
  GpuMapping gpu;
  if (!obj.contains("gpu")) return gpu;
  const json& g = obj["gpu"];
  const std::string gp = path + ".gpu";
  if (!g.is_object()) fail(where, gp, "expected an object with blocks and threads, found " + shown(g));
  if (memory) {
    check_keys(g, {"blocks", "threads", "memory"}, where, gp);
  } else {
    check_keys(g, {"blocks", "threads"}, where, gp);
  }
  gpu.blocks = string_list(g, "blocks", where, gp);
  gpu.threads = string_list(g, "threads", where, gp);
  if (memory) gpu.memory = string_field(g, "memory", where, gp, false);
  return gpu;
}

ordered compute_json(const ComputeLocation& compute) {
  ordered c;
  c["kind"] = to_string(compute.kind);
  if (compute.kind == ComputeLocation::Kind::kAt) {
    c["consumer"] = compute.consumer;
    c["consumer_stage"] = compute.consumer_stage;
    c["loop"] = compute.loop;
    if (!compute.store_loop.empty()) c["store_loop"] = compute.store_loop;
    if (compute.fold_rows > 0) c["fold_rows"] = compute.fold_rows;
    if (compute.row_alignment > 0) c["row_alignment"] = compute.row_alignment;
  }
  return c;
}

ComputeLocation compute_field(const json& obj, const std::string& where, const std::string& path) {
  const json& c = field(obj, "compute", where, path);
  const std::string cp = path + ".compute";
  if (!c.is_object()) fail(where, cp, "expected an object with \"kind\", found " + shown(c));
  check_keys(c, {"kind", "consumer", "consumer_stage", "loop", "store_loop", "fold_rows", "row_alignment"},
             where, cp);
  ComputeLocation out;
  const std::string kind = string_field(c, "kind", where, cp);
  if (kind == "inline") {
    out.kind = ComputeLocation::Kind::kInline;
  } else if (kind == "root") {
    out.kind = ComputeLocation::Kind::kRoot;
  } else if (kind == "at") {
    out.kind = ComputeLocation::Kind::kAt;
    out.consumer = string_field(c, "consumer", where, cp);
    out.consumer_stage = static_cast<int>(int_field(c, "consumer_stage", where, cp));
    out.loop = string_field(c, "loop", where, cp);
    if (c.contains("store_loop")) {
      out.store_loop = string_field(c, "store_loop", where, cp);
      if (out.store_loop.empty() || out.store_loop == out.loop) {
        fail(where, cp + ".store_loop", "expected a loop around \"" + out.loop + "\" (omit it to store where computed)");
      }
    }
    if (c.contains("fold_rows")) {
      out.fold_rows = int_field(c, "fold_rows", where, cp);
      if (out.fold_rows < 2 || out.store_loop.empty()) {
        fail(where, cp + ".fold_rows", "expected 2 or more rows, with a store_loop (a sliding window)");
      }
    }
    if (c.contains("row_alignment")) {
      out.row_alignment = int_field(c, "row_alignment", where, cp);
      const int64_t n = out.row_alignment;
      if (n < 2 || n > kMaxRowAlignment || (n & (n - 1)) != 0) {
        fail(where, cp + ".row_alignment",
             "expected a power of two from 2 to " + std::to_string(kMaxRowAlignment) + " values, found " + std::to_string(n));
      }
    }
  } else {
    fail(where, cp + ".kind", "expected inline, root or at, found \"" + kind + "\"");
  }
  return out;
}

ComputeWith compute_with_field(const json& func, const std::string& where, const std::string& fp) {
  ComputeWith out;
  if (!func.contains("compute_with")) return out;
  const json& c = func["compute_with"];
  const std::string cp = fp + ".compute_with";
  if (!c.is_object()) fail(where, cp, "expected an object with \"func\" and \"loop\", found " + shown(c));
  check_keys(c, {"func", "loop"}, where, cp);
  out.func = string_field(c, "func", where, cp);
  out.loop = string_field(c, "loop", where, cp);
  if (out.func.empty()) fail(where, cp + ".func", "expected the sibling Func's name");
  if (out.loop.empty()) fail(where, cp + ".loop", "expected a loop of both Funcs' pure stages");
  return out;
}

std::vector<InputPack> packs_field(const json& root, const std::string& where) {
  std::vector<InputPack> packs;
  if (!root.contains("packs")) return packs;
  const json& ps = root["packs"];
  if (!ps.is_array()) fail(where, "packs", "expected an array of input packs, found " + shown(ps));
  for (size_t i = 0; i < ps.size(); ++i) {
    const std::string pp = "packs[" + std::to_string(i) + "]";
    if (!ps[i].is_object()) fail(where, pp, "expected an object with \"input\", found " + shown(ps[i]));
    check_keys(ps[i], {"input", "storage", "compute", "vector_width", "parallel"}, where, pp);
    InputPack p;
    p.input = string_field(ps[i], "input", where, pp);
    p.storage = string_list(ps[i], "storage", where, pp);
    if (p.storage.empty()) fail(where, pp + ".storage", "expected the input's dimensions, innermost first");
    p.compute = compute_field(ps[i], where, pp);
    if (p.compute.kind == ComputeLocation::Kind::kInline) fail(where, pp + ".compute.kind", "expected root or at: a pack is stored");
    if (p.compute.sliding()) fail(where, pp + ".compute.store_loop", "a pack is stored where it is computed");
    if (ps[i].contains("vector_width")) {
      p.vector_width = int_field(ps[i], "vector_width", where, pp);
      if (p.vector_width < 2) fail(where, pp + ".vector_width", "expected a vector width >= 2");
    }
    p.parallel = bool_field(ps[i], "parallel", where, pp);
    packs.push_back(p);
  }
  return packs;
}

}  // namespace

const char* to_string(ComputeLocation::Kind kind) {
  switch (kind) {
    case ComputeLocation::Kind::kInline: return "inline";
    case ComputeLocation::Kind::kRoot: return "root";
    case ComputeLocation::Kind::kAt: return "at";
  }
  return "?";
}

bool ComputeLocation::operator==(const ComputeLocation& o) const {
  return kind == o.kind && (kind != Kind::kAt || (consumer == o.consumer && consumer_stage == o.consumer_stage && loop == o.loop &&
                                                   store_loop == o.store_loop && fold_rows == o.fold_rows &&
                                                   row_alignment == o.row_alignment));
}
bool LoopSplit::operator==(const LoopSplit& o) const {
  return loop == o.loop && outer == o.outer && inner == o.inner && factor == o.factor && tail == o.tail;
}

const char* to_string(Tail tail) {
  switch (tail) {
    case Tail::kShiftInwards:
      return "shift_inwards";
    case Tail::kRoundUp:
      return "round_up";
    case Tail::kGuard:
      break;
  }
  return "guard";
}
bool RFactor::operator==(const RFactor& o) const {
  return loop == o.loop && vectorize_u == o.vectorize_u && at_func == o.at_func && pure_vector == o.pure_vector &&
         splits == o.splits && gpu == o.gpu;
}
bool InputPack::operator==(const InputPack& o) const {
  return input == o.input && storage == o.storage && compute == o.compute && vector_width == o.vector_width &&
         parallel == o.parallel;
}

std::string input_dim_name(int d) {
  static const char* kNames[] = {"x", "y", "z", "w"};
  return d < 4 ? kNames[d] : "d" + std::to_string(d);
}

bool GpuMapping::operator==(const GpuMapping& o) const {
  return blocks == o.blocks && threads == o.threads && memory == o.memory;
}
bool StageSchedule::operator==(const StageSchedule& o) const {
  return stage == o.stage && splits == o.splits && order == o.order && parallel == o.parallel &&
         vectorize == o.vectorize && vector_reduce == o.vector_reduce && unroll == o.unroll && rfactor == o.rfactor &&
         gpu == o.gpu;
}
bool FuncSchedule::operator==(const FuncSchedule& o) const {
  return func == o.func && compute == o.compute && compute_with == o.compute_with && stages == o.stages &&
         storage == o.storage;
}

StageSchedule FuncSchedule::stage_or_empty(int stage) const {
  for (const StageSchedule& st : stages) {
    if (st.stage == stage) return st;
  }
  StageSchedule empty;
  empty.stage = stage;
  return empty;
}

FuncSchedule* Schedule::find(const std::string& func) {
  for (FuncSchedule& f : funcs) {
    if (f.func == func) return &f;
  }
  return nullptr;
}

const FuncSchedule* Schedule::find(const std::string& func) const {
  return const_cast<Schedule*>(this)->find(func);
}

json Schedule::to_json() const {
  ordered root;
  ordered fs = ordered::array();
  for (const FuncSchedule& f : funcs) {
    ordered fj;
    fj["func"] = f.func;
    fj["compute"] = compute_json(f.compute);
    // Only when set (reordered), so that other schedules keep their canonical text (and hash).
    if (!f.compute_with.empty()) fj["compute_with"] = ordered{{"func", f.compute_with.func}, {"loop", f.compute_with.loop}};
    if (!f.storage.empty()) fj["storage"] = strings(f.storage);
    ordered stages = ordered::array();
    for (const StageSchedule& s : f.stages) {
      ordered sj;
      sj["stage"] = s.stage;
      if (!s.splits.empty()) sj["splits"] = splits_json(s.splits);
      if (!s.order.empty()) sj["order"] = strings(s.order);
      if (!s.parallel.empty()) sj["parallel"] = strings(s.parallel);
      if (!s.vectorize.empty()) sj["vectorize"] = s.vectorize;
      if (!s.vector_reduce.empty()) sj["vector_reduce"] = s.vector_reduce;
      if (!s.unroll.empty()) sj["unroll"] = strings(s.unroll);
      if (s.rfactor) {
        ordered r;
        r["loop"] = s.rfactor->loop;
        if (s.rfactor->vectorize_u) r["vectorize_u"] = true;
        if (s.rfactor->at_func) r["at_func"] = true;
        if (s.rfactor->pure_vector) r["pure_vector"] = s.rfactor->pure_vector;
        // GPU fields only when set, so CPU rfactors keep their canonical text (and hash).
        if (!s.rfactor->splits.empty()) r["splits"] = splits_json(s.rfactor->splits);
        if (!s.rfactor->gpu.empty()) r["gpu"] = gpu_json(s.rfactor->gpu);
        sj["rfactor"] = r;
      }
      if (!s.gpu.empty()) sj["gpu"] = gpu_json(s.gpu);
      stages.push_back(sj);
    }
    if (!stages.empty()) fj["stages"] = stages;
    fs.push_back(fj);
  }
  root["funcs"] = fs;
  // Only when there are packs, so that schedules without them keep their canonical text (and hash).
  if (!packs.empty()) {
    ordered ps = ordered::array();
    for (const InputPack& p : packs) {
      ordered pj;
      pj["input"] = p.input;
      pj["storage"] = strings(p.storage);
      pj["compute"] = compute_json(p.compute);
      if (p.vector_width) pj["vector_width"] = p.vector_width;
      if (p.parallel) pj["parallel"] = true;
      ps.push_back(pj);
    }
    root["packs"] = ps;
  }
  return json::parse(root.dump());
}

Schedule Schedule::from_json(const json& j, const std::string& where) {
  Schedule s;
  if (!j.is_object()) fail(where, "(root)", "expected a schedule object with \"funcs\"");
  check_keys(j, {"funcs", "packs"}, where, "(root)");
  const json& fs = field(j, "funcs", where, "(root)");
  if (!fs.is_array()) fail(where, "funcs", "expected an array");
  for (size_t i = 0; i < fs.size(); ++i) {
    const std::string fp = "funcs[" + std::to_string(i) + "]";
    check_keys(fs[i], {"func", "compute", "compute_with", "storage", "stages"}, where, fp);
    FuncSchedule f;
    f.func = string_field(fs[i], "func", where, fp);
    f.compute = compute_field(fs[i], where, fp);
    f.compute_with = compute_with_field(fs[i], where, fp);
    f.storage = string_list(fs[i], "storage", where, fp);
    if (fs[i].contains("stages")) {
      const json& stages = fs[i]["stages"];
      if (!stages.is_array()) fail(where, fp + ".stages", "expected an array");
      for (size_t k = 0; k < stages.size(); ++k) {
        const std::string sp = fp + ".stages[" + std::to_string(k) + "]";
        const json& sj = stages[k];
        check_keys(sj, {"stage", "splits", "order", "parallel", "vectorize", "vector_reduce", "unroll", "rfactor", "gpu"},
                   where, sp);
        StageSchedule st;
        st.stage = static_cast<int>(int_field(sj, "stage", where, sp));
        if (st.stage < 0) fail(where, sp + ".stage", "expected a stage index >= 0");
        st.splits = splits_field(sj, where, sp);
        st.order = string_list(sj, "order", where, sp);
        st.parallel = string_list(sj, "parallel", where, sp);
        st.vectorize = string_field(sj, "vectorize", where, sp, false);
        st.vector_reduce = string_field(sj, "vector_reduce", where, sp, false);
        st.unroll = string_list(sj, "unroll", where, sp);
        if (sj.contains("rfactor")) {
          const json& r = sj["rfactor"];
          const std::string rp = sp + ".rfactor";
          if (!r.is_object()) fail(where, rp, "expected an object with \"loop\", found " + shown(r));
          check_keys(r, {"loop", "vectorize_u", "at_func", "pure_vector", "splits", "gpu"}, where, rp);
          RFactor rf;
          rf.loop = string_field(r, "loop", where, rp);
          rf.vectorize_u = bool_field(r, "vectorize_u", where, rp);
          rf.at_func = bool_field(r, "at_func", where, rp);
          if (r.contains("pure_vector")) {
            rf.pure_vector = int_field(r, "pure_vector", where, rp);
            if (rf.pure_vector < 2) fail(where, rp + ".pure_vector", "expected a vector width >= 2");
          }
          rf.splits = splits_field(r, where, rp);
          rf.gpu = gpu_field(r, where, rp, false);
          st.rfactor = rf;
        }
        st.gpu = gpu_field(sj, where, sp, true);
        f.stages.push_back(st);
      }
    }
    s.funcs.push_back(f);
  }
  s.packs = packs_field(j, where);
  return s;
}

std::string Schedule::hash() const { return stable_hash_hex(to_json().dump()); }

}  // namespace ktune::scheduler
