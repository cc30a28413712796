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
#include "tests/common/json_fuzz.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using nlohmann::json;
using ::ktune::testing::mutated_text;

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
