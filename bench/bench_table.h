// The bench report as people and programs read it: a text table per subgraph, one markdown
// table for a README (with the command line that produced it), and JSON. Ratios follow one
// convention everywhere: ratio = method median / ktune median, so > 1 means ktune is that
// many times faster; percent of roofline = roofline time / measured median.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "bench/bench_run.h"

namespace ktune::bench {

// The ratio of `method` to ktune on one subgraph; nullopt unless both are ok.
std::optional<double> ktune_ratio(const SubgraphBench& bench, const std::string& method);

// Per method: the geometric mean of its ratios over the subgraphs where it has one, and
// how many subgraphs that is.
std::map<std::string, std::pair<double, int>> geomean_ratios(const BenchReport& report);

std::string format_text(const BenchReport& report);
std::string format_markdown(const BenchReport& report, const std::string& command_line);
nlohmann::json to_json(const BenchReport& report, const std::string& command_line, const std::string& bench_uuid);

}  // namespace ktune::bench
