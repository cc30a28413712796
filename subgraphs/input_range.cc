#include "subgraphs/input_range.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "common/error.h"

namespace ktune::subgraphs {
namespace {

// A finite number filling all of `text`, or nullopt.
std::optional<double> finite_number(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

// Why `r` does not suit an input of `dtype`; empty when it does.
std::string range_problem(const InputRange& r, DType dtype) {
  if (is_float(dtype)) return r.lo < r.hi ? "" : "LO must be below HI for a " + to_string(dtype) + " input";
  const std::string type = to_string(dtype);
  if (r.lo != std::floor(r.lo)) return "LO " + number_text(r.lo) + " is not a whole number (a " + type + " input)";
  if (r.hi != std::floor(r.hi)) return "HI " + number_text(r.hi) + " is not a whole number (a " + type + " input)";
  if (r.lo < lowest_value(dtype)) return "LO " + number_text(r.lo) + " is below the " + type + " minimum " + number_text(lowest_value(dtype));
  if (r.hi > highest_value(dtype)) return "HI " + number_text(r.hi) + " is above the " + type + " maximum " + number_text(highest_value(dtype));
  return r.lo <= r.hi ? "" : "LO must not be above HI";
}

bool is_default(const TensorInfo& input, const InputRange& r) { return r == default_generator_range(input.dtype); }

}  // namespace

InputRange parse_input_range(const std::string& source, const std::string& name, const std::string& text,
                             char separator) {
  const std::string sep(1, separator);
  const std::string expected = "expected " + name + "=LO" + sep + "HI (two numbers, LO below HI)";
  const size_t at = text.find(separator);
  if (at == std::string::npos || text.find(separator, at + 1) != std::string::npos) {
    throw UserError(format_user_error(source, name, expected + ", found \"" + name + "=" + text + "\""));
  }
  const std::optional<double> lo = finite_number(text.substr(0, at)), hi = finite_number(text.substr(at + 1));
  if (!lo) throw UserError(format_user_error(source, name, "LO: " + expected + ", found \"" + text.substr(0, at) + "\""));
  if (!hi) throw UserError(format_user_error(source, name, "HI: " + expected + ", found \"" + text.substr(at + 1) + "\""));
  if (*lo > *hi) {
    throw UserError(format_user_error(source, name, expected + ", found LO " + number_text(*lo) + " above HI " + number_text(*hi)));
  }
  return {*lo, *hi};
}

InputRanges parse_input_range_flags(const std::vector<std::string>& items) {
  InputRanges ranges;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UserError(format_user_error("--input-range", "", "expected NAME=LO,HI (an input buffer and two numbers), found \"" + item + "\""));
    }
    const std::string name = item.substr(0, eq);
    if (ranges.count(name)) throw UserError(format_user_error("--input-range", name, "given twice"));
    ranges[name] = parse_input_range("--input-range", name, item.substr(eq + 1), ',');
  }
  return ranges;
}

InputRange default_generator_range(DType dtype) {
  if (is_float(dtype)) return {0.0, 1.0};
  return {lowest_value(dtype), highest_value(dtype)};
}

SeededRanges seeded_ranges(const std::vector<TensorInfo>& inputs, const InputRanges& given) {
  SeededRanges out;
  std::string names;
  for (const TensorInfo& t : inputs) names += (names.empty() ? "" : ", ") + t.name;
  for (const auto& [name, range] : given) {
    bool found = false;
    for (const TensorInfo& t : inputs) found |= t.name == name;
    if (!found) {
      out.error = "input range " + name + ": no input buffer named \"" + name + "\" (" +
                  (names.empty() ? "this pipeline has none" : "its input buffers: " + names) + ")";
      return out;
    }
  }
  for (const TensorInfo& t : inputs) {
    const auto it = given.find(t.name);
    const InputRange r = it == given.end() ? default_generator_range(t.dtype) : it->second;
    if (const std::string problem = range_problem(r, t.dtype); !problem.empty()) {
      out.error = "input range " + t.name + "=" + number_text(r.lo) + "," + number_text(r.hi) + ": " + problem;
      return out;
    }
    out.ranges.push_back(r);
  }
  return out;
}

std::string range_key_text(const std::vector<TensorInfo>& inputs, const std::vector<InputRange>& ranges) {
  std::string text;
  for (size_t i = 0; i < inputs.size() && i < ranges.size(); ++i) {
    if (is_default(inputs[i], ranges[i])) continue;
    char buf[128];
    std::snprintf(buf, sizeof(buf), "|range in%zu=[%a,%a)", i, ranges[i].lo, ranges[i].hi);
    text += buf;
  }
  return text;
}

std::string range_display_text(const std::vector<TensorInfo>& inputs, const std::vector<InputRange>& ranges) {
  std::string text;
  for (size_t i = 0; i < inputs.size() && i < ranges.size(); ++i) {
    if (is_default(inputs[i], ranges[i])) continue;
    const bool integral = !is_float(inputs[i].dtype);
    text += (text.empty() ? "" : "; ") + inputs[i].name + " in [" + number_text(ranges[i].lo) + ", " +
            number_text(ranges[i].hi) + (integral ? "]" : ")");
  }
  return text;
}

}  // namespace ktune::subgraphs
