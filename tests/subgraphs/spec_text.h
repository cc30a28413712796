// Shared by the spec tests: a spec written inline from its inputs and ops, and the
// UserError a spec text gives (empty when it is accepted).
#pragma once

#include <string>

#include "common/error.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::subgraphs::testing {

// A spec named "t" with `inputs` and `ops` (JSON list bodies) returning `output`.
inline std::string spec_text(const std::string& inputs, const std::string& ops, const std::string& output = "out") {
  return R"({"name": "t", "inputs": [)" + inputs + R"(], "ops": [)" + ops + R"(], "outputs": [")" + output + R"("]})";
}

// The UserError of building `text` as file "t.json"; empty when it builds.
inline std::string user_error_of(const std::string& text) {
  try {
    SpecSubgraph sg(parse_spec_text(text, "t.json"));
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace ktune::subgraphs::testing
