// The bytes a measuring child sends its parent: the fields of a MeasureResult that the
// child knows (status, message, max error, timings, threads), framed with a magic word
// so that a child that died mid-write is told apart from one that reported.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "measure/measure_result.h"

namespace ktune::measure {

// Serializes status, message, max_error, median_ns, min_ns, spread_ns, repeats, threads.
std::string encode_report(const MeasureResult& result);

// The inverse of encode_report; nullopt for truncated or foreign bytes.
std::optional<MeasureResult> decode_report(std::string_view bytes);

}  // namespace ktune::measure
