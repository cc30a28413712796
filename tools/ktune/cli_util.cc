#include "tools/ktune/cli_util.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "common/error.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::cli {

std::map<std::string, std::string> parse_params(const std::vector<std::string>& params, const std::string& flag) {
  std::map<std::string, std::string> out;
  for (const std::string& p : params) {
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UserError(format_user_error(flag, "", "expected k=v, found \"" + p + "\""));
    }
    out[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return out;
}

std::vector<std::unique_ptr<subgraphs::Subgraph>> load_subgraphs(const std::vector<std::string>& specs,
                                                                 const std::vector<std::string>& generators,
                                                                 const std::vector<std::string>& params,
                                                                 const std::vector<std::string>& inputs) {
  if (!params.empty() && generators.empty()) throw UserError("--param sets generator parameters and needs --generator");
  if (!inputs.empty() && generators.empty()) throw UserError("--input sets generator scalar inputs and needs --generator");
  std::vector<std::unique_ptr<subgraphs::Subgraph>> out;
  for (const std::string& path : specs) out.push_back(subgraphs::load_spec_subgraph(path));
  const auto values = parse_params(params);
  const auto scalars = parse_params(inputs, "--input");
  for (const std::string& g : generators) out.push_back(subgraphs::load_generator_subgraph(g, values, scalars));
  return out;
}

scheduler::Schedule read_schedule_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(format_user_error(path, "", "cannot open schedule file"));
  std::stringstream buf;
  buf << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(buf.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw UserError(format_user_error(path, "", std::string("invalid JSON: ") + e.what()));
  }
  return scheduler::Schedule::from_json(j, path);
}

}  // namespace ktune::cli
