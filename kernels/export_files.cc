#include "kernels/export_files.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/duration_text.h"
#include "common/error.h"
#include "kernels/generated_program.h"
#include "targets/c_identifier.h"

namespace ktune::kernels {
namespace {

namespace fs = std::filesystem;

// "[480, 640]", or "[480, 640] at [-2, -2]" for a tensor that does not start at 0.
std::string region_text(const subgraphs::TensorInfo& t) {
  return subgraphs::shape_to_string(t.shape) + (t.at_origin() ? "" : " at " + subgraphs::shape_to_string(t.mins));
}

nlohmann::ordered_json tensors_json(const std::vector<subgraphs::TensorInfo>& tensors) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& t : tensors) {
    out.push_back({{"name", t.name}, {"dtype", subgraphs::to_string(t.dtype)}, {"shape", t.shape}, {"mins", t.mins_or_zero()}});
  }
  return out;
}

void write_bytes(const fs::path& path, const std::vector<uint8_t>& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out) throw UserError(format_user_error(path.string(), "", "cannot write test data"));
}

std::string guard_of(const std::string& name) {
  std::string g = "KTUNE_EXPORT_";
  for (char c : name) g += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return g + "_H";
}

}  // namespace

namespace {

// C names of every parameter of k's function: inputs, outputs, then scalars.
std::vector<std::string> all_parameter_names(const PlannedKernel& k) {
  std::vector<std::string> names;
  for (const auto& t : k.subgraph->inputs()) names.push_back(t.name);
  for (const auto& t : k.subgraph->outputs()) names.push_back(t.name);
  for (const auto& s : k.subgraph->scalars()) names.push_back(s.name);
  return targets::unique_c_identifiers(names, "");
}

}  // namespace

std::vector<std::string> parameter_names(const PlannedKernel& k) {
  std::vector<std::string> names = all_parameter_names(k);
  names.resize(k.subgraph->inputs().size() + k.subgraph->outputs().size());
  return names;
}

std::vector<std::string> scalar_params(const PlannedKernel& k) {
  const std::vector<std::string> names = all_parameter_names(k);
  const size_t buffers = k.subgraph->inputs().size() + k.subgraph->outputs().size();
  return std::vector<std::string>(names.begin() + static_cast<std::ptrdiff_t>(buffers), names.end());
}

std::string library_file(const std::string& name) { return "lib" + name + ".a"; }
std::string header_file(const std::string& name) { return "include/" + name + ".h"; }
std::string schedule_source_file(const PlannedKernel& k) { return "schedules/" + k.function + ".cc"; }
std::string test_data_dir(const PlannedKernel& k) {
  return "test_data/" + (k.test_data_name.empty() ? k.function : k.test_data_name);
}

std::string header_text(const ExportPlan& plan, const ExportInfo& info) {
  std::ostringstream h;
  h << "// " << info.name << ".h: " << plan.kernels.size() << " kernels exported by ktune " << info.ktune_version
    << " (Halide " << info.halide_version << ")\n"
    << "// from " << info.db_path << " for device " << plan.device_key << ",\n"
    << "// Halide target " << plan.halide_target << ".\n"
    << "// Link lib" << info.name << ".a (it holds one Halide runtime) with -lpthread -ldl.\n"
    << "//\n"
    << "// Every function takes halide_buffer_t pointers to the inputs in the order listed, then its\n"
    << "// scalar inputs by value, then pointers to the outputs, and returns 0 or a halide_error_code_t.\n"
    << "// Shapes below are written outermost first (row-major, as in the spec); Halide buffers are\n"
    << "// innermost first, so dim[0] of each buffer is the LAST axis of its shape. A region \"at\" a\n"
    << "// point starts there (dim[i].min). Errors are also reported through halide_error, which\n"
    << "// aborts unless replaced with halide_set_error_handler().\n"
    << "#ifndef " << guard_of(info.name) << "\n#define " << guard_of(info.name) << "\n\n"
    << "#include \"HalideRuntime.h\"\n\n"
    << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const PlannedKernel& k : plan.kernels) {
    const std::vector<std::string> params = parameter_names(k);
    h << "\n// " << k.workload_name << " (workload " << k.workload_key << ")\n";
    size_t p = 0;
    for (const auto& t : k.subgraph->inputs()) {
      h << "//   input  " << params[p++] << ": " << subgraphs::to_string(t.dtype) << " " << region_text(t) << "\n";
    }
    for (const auto& s : k.subgraph->scalars()) {
      h << "//   scalar " << s.name << ": " << subgraphs::to_string(s.dtype) << " (tuned at " << scalar_literal(s) << ")\n";
    }
    for (const auto& t : k.subgraph->outputs()) {
      h << "//   output " << params[p++] << ": " << subgraphs::to_string(t.dtype) << " " << region_text(t) << "\n";
    }
    h << "//   schedule " << k.schedule_hash;
    if (k.tuned) {
      const auto& m = k.best->measurement;
      h << " (tuned): median " << ktune::format_ns(m.median_ns.value_or(-1)) << ", spread "
        << ktune::format_ns(m.spread_ns.value_or(-1)) << " on device " << plan.device_key << "\n";
    } else {
      h << " (FALLBACK: " << k.fallback << " schedule, not measured; " << k.fallback_reason << ")\n";
    }
    // Input buffers, scalars by value, output buffers: the order of the AOT arguments.
    std::vector<std::string> declarations;
    const size_t inputs = k.subgraph->inputs().size();
    for (size_t i = 0; i < inputs; ++i) declarations.push_back("struct halide_buffer_t *" + params[i]);
    const std::vector<std::string> scalars = scalar_params(k);
    for (size_t i = 0; i < scalars.size(); ++i) {
      declarations.push_back(subgraphs::c_type_name(k.subgraph->scalars()[i].dtype) + " " + scalars[i]);
    }
    for (size_t i = inputs; i < params.size(); ++i) declarations.push_back("struct halide_buffer_t *" + params[i]);
    h << "int " << k.function << "(";
    for (size_t i = 0; i < declarations.size(); ++i) h << (i ? ", " : "") << declarations[i];
    h << ");\n";
  }
  h << "\n#ifdef __cplusplus\n}  // extern \"C\"\n#endif\n\n#endif  // " << guard_of(info.name) << "\n";
  return h.str();
}

std::string schedule_source_text(const PlannedKernel& k, const ExportPlan& plan) {
  std::ostringstream s;
  s << "// Schedule of " << k.workload_name << " (workload " << k.workload_key << "), exported as " << k.function
    << "\n// schedule " << k.schedule_hash << ", "
    << (k.tuned ? "tuned on device " + plan.device_key : "FALLBACK: the " + k.fallback + " schedule") << "\n"
    << k.applied.source;
  return s.str();
}

nlohmann::ordered_json manifest_json(const ExportPlan& plan, const ExportInfo& info) {
  using nlohmann::ordered_json;
  ordered_json kernels = ordered_json::array();
  for (const PlannedKernel& k : plan.kernels) {
    ordered_json j = {{"function", k.function},
                        {"workload", k.workload_name},
                        {"workload_key", k.workload_key},
                        {"schedule_hash", k.schedule_hash},
                        {"status", k.tuned ? "tuned" : "fallback"},
                        {"fallback", k.tuned ? ordered_json(nullptr) : ordered_json(k.fallback)},
                        {"fallback_reason", k.tuned ? ordered_json(nullptr) : ordered_json(k.fallback_reason)},
                        {"device_key", plan.device_key},
                        {"median_ns", nullptr},
                        {"spread_ns", nullptr},
                        {"measured_with", nullptr},
                        {"inputs", tensors_json(k.subgraph->inputs())},
                        {"outputs", tensors_json(k.subgraph->outputs())},
                        {"schedule_source", schedule_source_file(k)}};
    if (k.tuned) {
      const auto& m = k.best->measurement;
      j["median_ns"] = m.median_ns.value_or(-1);
      j["spread_ns"] = m.spread_ns.value_or(-1);
      j["measured_with"] = {{"ktune_version", m.ktune_version}, {"halide_version", m.halide_version},
                            {"stale", k.best->stale}, {"threads", m.threads}};
    }
    if (info.test_data) j["test_data"] = test_data_dir(k);
    kernels.push_back(std::move(j));
  }
  ordered_json m = {{"format", "ktune-kernel-library"},
                      {"format_version", 1},
                      {"name", info.name},
                      {"library", library_file(info.name)},
                      {"header", header_file(info.name)},
                      {"device_key", plan.device_key},
                      {"halide_target", plan.halide_target},
                      {"ktune_version", info.ktune_version},
                      {"halide_version", info.halide_version},
                      {"database", info.db_path},
                      {"kernels", kernels}};
  if (info.test_data) m["test_data_seed"] = info.seed;
  return m;
}

std::string manifest_table(const nlohmann::ordered_json& manifest) {
  std::ostringstream t;
  char line[512];
  std::snprintf(line, sizeof line, "%-28s %-20s %-22s %-14s %10s %10s\n", "function", "workload", "status",
                "schedule", "median", "spread");
  t << line;
  for (const auto& k : manifest["kernels"]) {
    const bool tuned = k["status"] == "tuned";
    const std::string status = tuned ? "tuned" : "FALLBACK(" + k["fallback"].get<std::string>() + ")";
    const double median = tuned ? k["median_ns"].get<double>() : -1;
    const double spread = tuned ? k["spread_ns"].get<double>() : -1;
    std::snprintf(line, sizeof line, "%-28s %-20s %-22s %-14s %10s %10s\n", k["function"].get<std::string>().c_str(),
                  k["workload"].get<std::string>().c_str(), status.c_str(),
                  k["schedule_hash"].get<std::string>().substr(0, 12).c_str(), ktune::format_ns(median).c_str(),
                  ktune::format_ns(spread).c_str());
    t << line;
  }
  return t.str();
}

void write_test_data(const ExportPlan& plan, uint64_t seed, const std::string& dir) {
  std::set<std::string> written;
  for (const PlannedKernel& k : plan.kernels) {
    if (!written.insert(test_data_dir(k)).second) continue;
    const fs::path d = fs::path(dir) / test_data_dir(k);
    fs::create_directories(d);
    const std::vector<subgraphs::Tensor> inputs = k.subgraph->make_inputs(seed);
    const std::vector<subgraphs::Tensor> refs = k.subgraph->reference(inputs);
    const std::vector<std::string> params = parameter_names(k);
    size_t p = 0;
    for (const subgraphs::Tensor& t : inputs) write_bytes(d / data_file(params[p++], t.dtype, false), t.bytes);
    for (const subgraphs::Tensor& t : refs) write_bytes(d / data_file(params[p++], t.dtype, true), t.bytes);
  }
}

}  // namespace ktune::kernels
