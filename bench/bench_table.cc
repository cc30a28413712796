#include "bench/bench_table.h"

#include <cmath>
#include <cstdio>


namespace ktune::bench {
namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

// Milliseconds with three significant digits.
std::string ms(double ns) {
  const double v = ns / 1e6;
  if (v >= 100) return fmt("%.0f", v);
  if (v >= 10) return fmt("%.1f", v);
  if (v >= 1) return fmt("%.2f", v);
  return fmt("%.3g", v);
}

// Above 100% the limit was under-measured (a loaded machine during the microbenchmarks) or
// the data stayed in cache across repeats (the bandwidth limit is DRAM's); marked with "*".
std::string percent(double roofline_ns, double median_ns) {
  const double p = 100.0 * roofline_ns / median_ns;
  if (p > 100) return fmt("%.0f%%*", p);
  return p < 1 ? "<1%" : fmt("%.0f%%", p);
}

constexpr const char* kAboveRooflineNote =
    "* above 100% of the roofline: the peak or the bandwidth was under-measured (another load during the "
    "microbenchmarks), or the subgraph's data stayed in cache between repeats (the bandwidth limit is DRAM's).";

std::string ratio_text(double r) { return fmt("%.2fx", r); }

// "not tuned", "unsupported", "crash", ... for rows without timings.
std::string failure_word(const MethodRow& row) {
  if (row.method == "ktune" && row.status == "unsupported") return "not tuned";
  if (row.status == "unsupported") return "—";
  return "**" + row.status + "**";
}

// The methods that appear in the report, in bench order.
std::vector<std::string> methods_of(const BenchReport& report) {
  std::vector<std::string> out;
  for (const std::string& m : bench_method_names()) {
    for (const SubgraphBench& s : report.subgraphs) {
      if (s.row(m)) {
        out.push_back(m);
        break;
      }
    }
  }
  return out;
}

std::string protocol_text(const BenchReport& r) {
  return std::to_string(r.timing.warmup_runs) + " warm-up run(s), then timed runs until at least " +
         std::to_string(r.timing.min_repeats) + " and " + fmt("%.0f", r.timing.min_total_ms) + " ms; " +
         std::to_string(r.rounds) + " interleaved round(s), median of the round medians";
}

}  // namespace

std::optional<double> ktune_ratio(const SubgraphBench& bench, const std::string& method) {
  const MethodRow* k = bench.row("ktune");
  const MethodRow* m = bench.row(method);
  if (!k || !m || k->status != "ok" || m->status != "ok" || k->result.median_ns <= 0) return std::nullopt;
  return m->result.median_ns / k->result.median_ns;
}

std::map<std::string, std::pair<double, int>> geomean_ratios(const BenchReport& report) {
  std::map<std::string, std::pair<double, int>> out;
  for (const std::string& m : bench_method_names()) {
    if (m == "ktune") continue;
    double log_sum = 0;
    int n = 0;
    for (const SubgraphBench& s : report.subgraphs) {
      if (auto r = ktune_ratio(s, m)) {
        log_sum += std::log(*r);
        ++n;
      }
    }
    if (n > 0) out[m] = {std::exp(log_sum / n), n};
  }
  return out;
}

std::string format_text(const BenchReport& report) {
  std::string out;
  out += "device     " + report.device_description + "\n";
  out += "threads    " + std::to_string(report.threads) + " (Halide, OpenBLAS, oneDNN, microbenchmarks); OMP_WAIT_POLICY " +
         (report.openmp_wait_policy.empty() ? "default" : report.openmp_wait_policy) + "\n";
  out += "roofline   " + report.roofline.describe() + "\n";
  out += "autosched  MachineParams " + report.machine_params.to_string() + " (parallelism, LLC bytes, balance)\n";
  out += "protocol   " + protocol_text(report) + "\n";
  out += "ratio      method median / ktune median (> 1: ktune is faster)\n";
  out += "%roofline  roofline time / median; (of min): / the fastest run, as the peak is the fastest of its trials\n";
  for (const SubgraphBench& s : report.subgraphs) {
    out += "\n" + s.name + "  (" + fmt("%.3g", s.flops / 1e9) + " GFLOP, " + fmt("%.3g", s.bytes / 1e6) +
           " MB, roofline " + ms(s.roofline_ns) + " ms)\n";
    char line[512];
    std::snprintf(line, sizeof(line), "  %-16s %-12s %10s %10s %10s %8s %9s %9s  %s\n", "method", "status", "median ms",
                  "min ms", "IQR ms", "ratio", "%roofline", "(of min)", "detail");
    out += line;
    for (const MethodRow& row : s.rows) {
      const bool ok = row.status == "ok";
      const auto ratio = ktune_ratio(s, row.method);
      std::snprintf(line, sizeof(line), "  %-16s %-12s %10s %10s %10s %8s %9s %9s  %s\n", row.method.c_str(),
                    row.status.c_str(), ok ? ms(row.result.median_ns).c_str() : "-",
                    ok ? ms(row.result.min_ns).c_str() : "-", ok ? ms(row.result.spread_ns).c_str() : "-",
                    ratio ? ratio_text(*ratio).c_str() : "-",
                    ok ? percent(s.roofline_ns, row.result.median_ns).c_str() : "-",
                    ok ? percent(s.roofline_ns, row.result.min_ns).c_str() : "-", row.detail.c_str());
      out += line;
    }
  }
  out += std::string("\n") + kAboveRooflineNote + "\n";
  out += "\ngeometric mean of ratios (method / ktune):\n";
  const auto means = geomean_ratios(report);
  if (means.empty()) out += "  none (ktune has no ok row)\n";
  for (const auto& [method, mean] : means) {
    out += "  " + method + ": " + ratio_text(mean.first) + " over " + std::to_string(mean.second) + " subgraph(s)\n";
  }
  return out;
}

std::string format_markdown(const BenchReport& report, const std::string& command_line) {
  const std::vector<std::string> methods = methods_of(report);
  std::string out;
  out += "```\n" + command_line + "\n```\n\n";
  out += "Device: " + report.device_description + ". Threads: " + std::to_string(report.threads) +
         " for every method (OpenMP wait policy of oneDNN: " +
         (report.openmp_wait_policy.empty() ? "default" : report.openmp_wait_policy) + "). Roofline: " + report.roofline.describe() +
         ". Autoscheduler MachineParams: " + report.machine_params.to_string() + ". Protocol: " +
         protocol_text(report) + ".\n\n";
  out += "Cells: median ms (percent of roofline) and, for other methods, the ratio method / ktune "
         "(> 1: ktune is faster). " + std::string(kAboveRooflineNote) + "\n\n";
  out += "| subgraph | roofline ms |";
  for (const std::string& m : methods) out += " " + method_display_name(m) + " |";
  out += "\n|---|---|";
  for (size_t i = 0; i < methods.size(); ++i) out += "---|";
  out += "\n";
  for (const SubgraphBench& s : report.subgraphs) {
    out += "| " + s.name + " | " + ms(s.roofline_ns) + " |";
    for (const std::string& m : methods) {
      const MethodRow* row = s.row(m);
      std::string cell;
      if (!row) {
        cell = "—";
      } else if (row->status != "ok") {
        cell = failure_word(*row);
      } else {
        cell = ms(row->result.median_ns) + " (" + percent(s.roofline_ns, row->result.median_ns) + ")";
        if (auto r = ktune_ratio(s, m); r && m != "ktune") cell += " " + ratio_text(*r);
      }
      out += " " + cell + " |";
    }
    out += "\n";
  }
  const auto means = geomean_ratios(report);
  out += "| geometric mean of ratios | |";
  for (const std::string& m : methods) {
    auto it = means.find(m);
    out += " " + (m == "ktune" ? std::string("1.00x") : it == means.end() ? "—" : ratio_text(it->second.first) + " (n=" + std::to_string(it->second.second) + ")") + " |";
  }
  out += "\n";
  // Failures are reported, not hidden.
  std::string notes;
  for (const SubgraphBench& s : report.subgraphs) {
    for (const MethodRow& row : s.rows) {
      if (row.status != "ok" && row.status != "unsupported") {
        notes += "- " + s.name + " / " + method_display_name(row.method) + ": " + row.status + ": " + row.detail + "\n";
      }
    }
  }
  if (!notes.empty()) out += "\nFailures:\n\n" + notes;
  return out;
}

nlohmann::json to_json(const BenchReport& report, const std::string& command_line, const std::string& bench_uuid) {
  nlohmann::json j;
  j["bench_uuid"] = bench_uuid;
  j["command"] = command_line;
  j["device_key"] = report.device_key;
  j["device"] = report.device_description;
  j["threads"] = report.threads;
  j["machine_params"] = report.machine_params.to_string();
  j["peak_flops"] = report.roofline.peak_flops;
  j["peak_bf16_flops"] = report.roofline.peak_bf16_flops;
  j["peak_int8_ops"] = report.roofline.peak_int8_ops;
  j["bandwidth_bytes_per_s"] = report.roofline.bandwidth_bytes;
  j["ratio_convention"] = "method median / ktune median; > 1 means ktune is faster";
  j["rounds"] = report.rounds;
  j["openmp_wait_policy"] = report.openmp_wait_policy;
  nlohmann::json subs = nlohmann::json::array();
  for (const SubgraphBench& s : report.subgraphs) {
    nlohmann::json rows = nlohmann::json::array();
    for (const MethodRow& row : s.rows) {
      const bool ok = row.status == "ok";
      const auto ratio = ktune_ratio(s, row.method);
      rows.push_back({{"method", row.method},
                      {"status", row.status},
                      {"median_ns", ok ? row.result.median_ns : 0.0},
                      {"min_ns", ok ? row.result.min_ns : 0.0},
                      {"iqr_ns", ok ? row.result.spread_ns : 0.0},
                      {"repeats", ok ? row.result.repeats : 0},
                      {"max_error", row.result.max_error},
                      {"ratio", ratio ? nlohmann::json(*ratio) : nlohmann::json(nullptr)},
                      {"roofline_fraction", ok ? nlohmann::json(s.roofline_ns / row.result.median_ns) : nlohmann::json(nullptr)},
                      {"roofline_fraction_of_min",
                       ok ? nlohmann::json(s.roofline_ns / row.result.min_ns) : nlohmann::json(nullptr)},
                      {"detail", row.detail}});
    }
    subs.push_back({{"name", s.name},
                    {"workload_key", s.workload_key},
                    {"flops", s.flops},
                    {"bytes", s.bytes},
                    {"roofline_ns", s.roofline_ns},
                    {"methods", rows}});
  }
  j["subgraphs"] = subs;
  nlohmann::json means = nlohmann::json::object();
  for (const auto& [m, v] : geomean_ratios(report)) means[m] = {{"ratio", v.first}, {"subgraphs", v.second}};
  j["geomean_ratios"] = means;
  return j;
}

}  // namespace ktune::bench
