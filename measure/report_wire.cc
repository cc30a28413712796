#include "measure/report_wire.h"

#include <cstdint>
#include <cstring>

namespace ktune::measure {
namespace {

constexpr uint32_t kMagic = 0x4b544d52;  // "KTMR"

// Fixed-size part of the report, followed by message_bytes bytes of message.
struct Header {
  uint32_t magic;
  int32_t status;
  double max_error;
  double median_ns;
  double min_ns;
  double spread_ns;
  int32_t repeats;
  int32_t threads;
  uint64_t message_bytes;
};

}  // namespace

std::string encode_report(const MeasureResult& r) {
  Header h{kMagic, static_cast<int32_t>(r.status), r.max_error, r.median_ns, r.min_ns, r.spread_ns,
           r.repeats, r.threads, r.message.size()};
  std::string out(sizeof(Header), '\0');
  std::memcpy(out.data(), &h, sizeof(Header));
  out += r.message;
  return out;
}

std::optional<MeasureResult> decode_report(std::string_view bytes) {
  Header h;
  if (bytes.size() < sizeof(Header)) return std::nullopt;
  std::memcpy(&h, bytes.data(), sizeof(Header));
  if (h.magic != kMagic || bytes.size() != sizeof(Header) + h.message_bytes) return std::nullopt;
  if (h.status < 0 || h.status > static_cast<int32_t>(MeasureStatus::kWrongResult)) return std::nullopt;
  MeasureResult r;
  r.status = static_cast<MeasureStatus>(h.status);
  r.max_error = h.max_error;
  r.median_ns = h.median_ns;
  r.min_ns = h.min_ns;
  r.spread_ns = h.spread_ns;
  r.repeats = h.repeats;
  r.threads = h.threads;
  r.message.assign(bytes.data() + sizeof(Header), h.message_bytes);
  return r;
}

}  // namespace ktune::measure
