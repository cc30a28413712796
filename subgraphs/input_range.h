// The range a Generator's seeded input buffer is drawn from: given per input by the user
// (`--input-range alpha=0.1,1`, or `alpha=0.1:1` in the plugin's KTUNE_INPUTS), else a
// default for image pipelines (floats in [0, 1), integers over their type's range). A
// range other than the default is part of the workload key.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

// Seeded values are uniform in [lo, hi) for floats, whole numbers in [lo, hi] for integers.
struct InputRange {
  double lo = 0;
  double hi = 1;
  bool operator==(const InputRange& o) const { return lo == o.lo && hi == o.hi; }
};

// Ranges by input buffer name.
using InputRanges = std::map<std::string, InputRange>;

// "LO<sep>HI" for input `name`, as `source` gave it ("--input-range", "KTUNE_INPUTS"):
// two finite numbers, LO below HI. UserError naming the source, the input and the field.
InputRange parse_input_range(const std::string& source, const std::string& name, const std::string& text,
                             char separator);

// Every "NAME=LO,HI" of --input-range. UserError naming the flag and what was expected.
InputRanges parse_input_range_flags(const std::vector<std::string>& items);

// The default range of a Generator's input of `dtype`: [0, 1) for floats (image
// intensities, alpha, weights), the type's whole range for integers, {0, 1} for bool.
InputRange default_generator_range(DType dtype);

// The range `input` is seeded from: the given one, else the default. Empty `error` when
// every given range names an input and suits its type; otherwise the reason, naming the
// input, the field and what was expected.
struct SeededRanges {
  std::vector<InputRange> ranges;  // one per input, in inputs order
  std::string error;
};
SeededRanges seeded_ranges(const std::vector<TensorInfo>& inputs, const InputRanges& given);

// The ranges that differ from the default, as text for the workload key (positional
// names, exact values): "|range in0=[0x1.999999999999ap-4,0x1p+0)"; empty when every input
// is at its default, so that the keys of earlier runs stay what they were.
std::string range_key_text(const std::vector<TensorInfo>& inputs, const std::vector<InputRange>& ranges);

// The same for people: "alpha in [0.1, 1)"; empty when every input is at its default.
std::string range_display_text(const std::vector<TensorInfo>& inputs, const std::vector<InputRange>& ranges);

}  // namespace ktune::subgraphs
