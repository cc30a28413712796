// Fuzzing what users hand ktune: thousands of malformed specs and schedules, mutated from
// the suite's (deleted fields, wrong types, extreme numbers, long strings, deep nesting, cut
// text, repeated keys), each parsed and validated in a forked child. Every one must be
// accepted or refused with a UserError: never a signal, never another exception.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/user_json.h"
#include "scheduler/space.h"
#include "subgraphs/spec_subgraph.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using nlohmann::json;

constexpr int kAccepted = 0;
constexpr int kRefused = 2;
constexpr int kOtherException = 3;

// Runs `body` in a child; returns its exit code, or 128 + the signal that ended it.
int outcome_in_child(const std::function<void()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    try {
      body();
    } catch (const UserError&) {
      _exit(kRefused);
    } catch (...) {
      _exit(kOtherException);
    }
    _exit(kAccepted);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Every value of `j`, by pointer, in document order.
void collect_nodes(json& j, std::vector<json*>& out) {
  out.push_back(&j);
  if (j.is_structured()) {
    for (auto& child : j) collect_nodes(child, out);
  }
}

json hostile_value(std::mt19937& rng) {
  static const std::vector<json> values = {
      nullptr, true, -1, 0, 1, 1e308, -1e308, 2147483648LL, -2147483649LL, 9223372036854775807LL,
      json(18446744073709551615ULL), "", "x", std::string(20000, 'n'), "a b", json::array(), json::object(),
      json::array({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), json::array({"a", "a"}), 0.5, -0.0};
  return values[rng() % values.size()];
}

// One structural mutation of a copy of `base`: delete a field or element, or replace a
// value with a hostile one.
json mutate_structure(const json& base, std::mt19937& rng) {
  json doc = base;
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    std::vector<json*> nodes;
    collect_nodes(doc, nodes);
    json* node = nodes[rng() % nodes.size()];
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
std::string mutate_text(const std::string& text, std::mt19937& rng) {
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

std::string mutated_text(const json& base, std::mt19937& rng) {
  return rng() % 4 == 0 ? mutate_text(base.dump(), rng) : mutate_structure(base, rng).dump();
}

const std::vector<std::string>& suite_names() {
  static const std::vector<std::string> names = {"gemm_1024", "mlp_gelu", "bmm_scores", "conv3x3_relu", "dwconv3x3_relu",
                                                 "softmax", "layernorm", "eltwise", "blur3x3", "colsum"};
  return names;
}

TEST(InputFuzz, MalformedSpecsAreAcceptedOrRefusedNeverCrash) {
  std::mt19937 rng(20261124);
  int refused = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::string name = suite_names()[i % suite_names().size()];
    const auto sg = testing::suite_subgraph(name);
    const std::string text = mutated_text(subgraphs::spec_to_json(sg->spec()), rng);
    const int outcome = outcome_in_child([&] {
      subgraphs::SpecSubgraph parsed(subgraphs::parse_spec_text(text, "fuzz.json"));
      parsed.build();  // the Halide definition of what was accepted
    });
    ASSERT_TRUE(outcome == kAccepted || outcome == kRefused)
        << "outcome " << outcome << " (3: an exception that is not a UserError; above 128: a signal) for\n"
        << text.substr(0, 2000);
    refused += outcome == kRefused;
  }
  EXPECT_GT(refused, 1000) << "the mutations should mostly produce bad specs";
}

TEST(InputFuzz, MalformedSchedulesAreAcceptedOrRefusedNeverCrash) {
  std::mt19937 rng(7);
  int refused = 0;
  for (const char* name : {"blur3x3", "softmax", "gemm_1024"}) {
    const auto sg = testing::suite_subgraph(name);
    const Space space(analyze(*sg, testing::test_target()));
    const json base = space.heuristic().to_json();
    for (int i = 0; i < 400; ++i) {
      const std::string text = mutated_text(base, rng);
      const int outcome = outcome_in_child([&] {
        const Schedule s = Schedule::from_json(parse_user_json(text, "fuzz_schedule.json"), "fuzz_schedule.json");
        if (const auto problem = space.validate(s)) throw UserError(*problem);
      });
      ASSERT_TRUE(outcome == kAccepted || outcome == kRefused)
          << name << ": outcome " << outcome << " for\n" << text.substr(0, 2000);
      refused += outcome == kRefused;
    }
  }
  EXPECT_GT(refused, 600);
}

}  // namespace
}  // namespace ktune::scheduler
