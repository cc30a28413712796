#include "report/report_html.h"

#include <nlohmann/json.hpp>

#include "common/check.h"
#include "report/report_assets.h"

namespace ktune::report {
namespace {

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json pair_json(const PairReport& p) {
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& c : p.curve) curve.push_back({{"trial", c.trial}, {"elapsed_s", c.elapsed_s}, {"best_ns", c.best_ns}});
  nlohmann::json histogram = nlohmann::json::array();
  for (const auto& b : p.histogram) histogram.push_back({{"lo_ns", b.lo_ns}, {"hi_ns", b.hi_ns}, {"count", b.count}});
  nlohmann::json statuses = nlohmann::json::array();
  for (const auto& s : p.statuses) statuses.push_back({{"status", s.status}, {"count", s.count}});
  nlohmann::json measured_by = nlohmann::json::array();
  for (const auto& m : p.measured_by) {
    measured_by.push_back({{"host", m.host}, {"rank", m.rank ? nlohmann::json(*m.rank) : nlohmann::json(nullptr)},
                           {"count", m.count}});
  }
  nlohmann::json points = nlohmann::json::array();
  for (const auto& r : p.ranks.points) {
    points.push_back({{"run_id", r.run_id}, {"predicted_rank", r.predicted_rank}, {"measured_rank", r.measured_rank}});
  }
  nlohmann::json bars = nlohmann::json::array();
  for (const auto& b : p.bench) {
    bars.push_back({{"method", b.method}, {"status", b.status}, {"median_ns", b.median_ns},
                    {"vs_ktune", optional_number(b.vs_ktune)}, {"detail", b.detail}});
  }
  return {
      {"workload", p.workload_name},
      {"workload_key", p.workload_key},
      {"device_key", p.device_key},
      {"device_target", p.device_target},
      {"device_name", p.device_name},
      {"trials", p.trials},
      {"ok", p.ok},
      {"best_ns", optional_number(p.best_ns)},
      {"first_ns", optional_number(p.first_ns)},
      {"curve", std::move(curve)},
      {"histogram", std::move(histogram)},
      {"statuses", std::move(statuses)},
      {"measured_by", std::move(measured_by)},
      {"ranks",
       {{"points", std::move(points)},
        {"runs", p.ranks.runs},
        {"pairwise_accuracy", p.ranks.pairwise_accuracy},
        {"spearman", p.ranks.spearman}}},
      {"bench", {{"uuid", p.bench_uuid}, {"created_at", p.bench_created_at}, {"bars", std::move(bars)}}},
  };
}

// Replaces the one occurrence of `placeholder` in `page` by `value`.
void fill(std::string& page, const std::string& placeholder, const std::string& value) {
  const size_t at = page.find(placeholder);
  KTUNE_CHECK(at != std::string::npos && page.find(placeholder, at + 1) == std::string::npos)
      << "report template must hold " << placeholder << " once";
  page.replace(at, placeholder.size(), value);
}

}  // namespace

nlohmann::json report_json(const ReportData& data, const std::string& ktune_version) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const PairReport& p : data.pairs) pairs.push_back(pair_json(p));
  return {{"database", data.database},
          {"generated_at_ms", data.generated_at_ms},
          {"ktune_version", ktune_version},
          {"pairs", std::move(pairs)}};
}

std::string script_safe_json(const nlohmann::json& json) {
  // Invalid UTF-8 in a stored name is replaced rather than thrown on.
  const std::string text = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_report_html(const ReportData& data, const std::string& ktune_version) {
  std::string page = kReportTemplate;
  // Style and script first: the data is filled last so that nothing in it is ever searched.
  fill(page, "{{STYLE}}", kReportStyle);
  fill(page, "{{SCRIPT}}", kReportScript);
  fill(page, "{{DATA}}", script_safe_json(report_json(data, ktune_version)));
  return page;
}

}  // namespace ktune::report
