#include "search/budget.h"

#include <algorithm>
#include <cctype>

#include "common/error.h"

namespace ktune::search {

std::optional<double> round_end_s(const Budget& budget, double elapsed_s, int tasks_without_round) {
  if (!budget.seconds) return std::nullopt;
  const double end = *budget.seconds;
  if (tasks_without_round <= 1) return end;
  const double left = std::max(0.0, end - elapsed_s);
  return elapsed_s + left / tasks_without_round;
}

double parse_duration_seconds(const std::string& text, const std::string& flag) {
  auto bad = [&] {
    return UserError(format_user_error(flag, "", "expected a duration such as 8h, 90m, 1h30m or 45s, found \"" + text + "\""));
  };
  if (text.empty()) throw bad();
  double total = 0;
  size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    if (j == i) throw bad();
    double value = 0;
    try {
      value = std::stod(text.substr(i, j - i));
    } catch (const std::exception&) {
      throw bad();
    }
    double unit = 1;
    if (j < text.size()) {
      switch (text[j]) {
        case 'h': unit = 3600; break;
        case 'm': unit = 60; break;
        case 's': unit = 1; break;
        default: throw bad();
      }
      ++j;
    } else if (any) {
      throw bad();  // "1h30" is ambiguous
    }
    total += value * unit;
    any = true;
    i = j;
  }
  if (total <= 0) throw bad();
  if (!(total <= kMaxBudgetSeconds)) {
    throw UserError(format_user_error(flag, "", "\"" + text + "\" is longer than the longest budget, 30 days"));
  }
  return total;
}

}  // namespace ktune::search
