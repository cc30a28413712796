// Turns ReportData into the self-contained HTML page of `ktune report`: the page template,
// stylesheet and drawing script (assets/, embedded into the binary at build time) with the
// data inlined as JSON that no workload name can break out of.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "report/report_data.h"

namespace ktune::report {

// The data as the page's script reads it (field names as in report.js).
nlohmann::json report_json(const ReportData& data, const std::string& ktune_version);

// `json` serialized so that it can sit inside <script>...</script>: '<', '>', '&' and the
// line separators U+2028/U+2029 are written as \u escapes, which JSON.parse reads back as is.
std::string script_safe_json(const nlohmann::json& json);

// The whole page.
std::string render_report_html(const ReportData& data, const std::string& ktune_version);

}  // namespace ktune::report
