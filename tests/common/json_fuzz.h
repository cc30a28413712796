// Mutations of valid JSON documents for fuzz tests of what users hand ktune: structural
// edits (a field or element deleted, a value replaced by a hostile one: null, extreme
// numbers, long strings, empty containers) and textual ones (cut text, a key given twice,
// deep nesting). Shared by the library-level and the command-line fuzz tests.
#pragma once

#include <nlohmann/json.hpp>

#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace ktune::testing {

// Every value of `j`, by pointer, in document order.
inline void collect_nodes(nlohmann::json& j, std::vector<nlohmann::json*>& out) {
  out.push_back(&j);
  if (j.is_structured()) {
    for (auto& child : j) collect_nodes(child, out);
  }
}

inline nlohmann::json hostile_value(std::mt19937& rng) {
  static const std::vector<nlohmann::json> values = {
      nullptr, true, -1, 0, 1, 1e308, -1e308, 2147483648LL, -2147483649LL, 9223372036854775807LL,
      nlohmann::json(18446744073709551615ULL), "", "x", std::string(20000, 'n'), "a b",
      nlohmann::json::array(), nlohmann::json::object(), nlohmann::json::array({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
      nlohmann::json::array({"a", "a"}), 0.5, -0.0};
  return values[rng() % values.size()];
}

// One structural mutation of a copy of `base`: delete a field or element, or replace a
// value with a hostile one.
inline nlohmann::json mutate_structure(const nlohmann::json& base, std::mt19937& rng) {
  nlohmann::json doc = base;
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    std::vector<nlohmann::json*> nodes;
    collect_nodes(doc, nodes);
    nlohmann::json* node = nodes[rng() % nodes.size()];
    if (node->is_object() && !node->empty() && rng() % 2) {
      auto it = node->begin();
      std::advance(it, rng() % node->size());
      node->erase(it.key());
    } else if (node->is_array() && !node->empty() && rng() % 2) {
      node->erase(node->begin() + static_cast<long>(rng() % node->size()));
    } else {
      *node = hostile_value(rng);
    }
  }
  return doc;
}

// One textual mutation: cut the text, repeat a key, or wrap it in deep nesting.
inline std::string mutate_text(const std::string& text, std::mt19937& rng) {
  switch (rng() % 3) {
    case 0: return text.substr(0, rng() % (text.size() + 1));
    case 1: {
      const size_t brace = text.find('{');
      return text.substr(0, brace + 1) + R"("name": "twice", )" + text.substr(brace + 1);
    }
    default: {
      const size_t depth = 50 + rng() % 100000;
      return std::string(depth, '[') + text + std::string(depth, ']');
    }
  }
}

// A mutated text of `base`: one time in four a textual mutation, else a structural one.
inline std::string mutated_text(const nlohmann::json& base, std::mt19937& rng) {
  return rng() % 4 == 0 ? mutate_text(base.dump(), rng) : mutate_structure(base, rng).dump();
}

}  // namespace ktune::testing
