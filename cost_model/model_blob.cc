#include "cost_model/model_blob.h"

#include <cstring>

#include "common/error.h"
#include "cost_model/features.h"

namespace ktune::cost_model {
namespace {

constexpr char kMagic[4] = {'K', 'T', 'C', 'M'};
constexpr uint32_t kEnvelopeFormat = 1;

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Little-endian reader that refuses to run past the end.
class Reader {
 public:
  explicit Reader(const std::vector<uint8_t>& b) : b_(b) {}
  uint32_t u32() {
    need(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(b_[pos_ + i]) << (8 * i);
    pos_ += 4;
    return v;
  }
  std::string text(size_t n) {
    need(n);
    std::string s(b_.begin() + static_cast<std::ptrdiff_t>(pos_), b_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
    return s;
  }
  size_t pos() const { return pos_; }

 private:
  void need(size_t n) const {
    if (pos_ + n > b_.size()) throw UserError("cost model blob: truncated (" + std::to_string(b_.size()) + " bytes)");
  }
  const std::vector<uint8_t>& b_;
  size_t pos_ = 0;
};

ModelBlobHeader read_header(Reader& r, const std::vector<uint8_t>& blob) {
  if (blob.size() < sizeof(kMagic) || std::memcmp(blob.data(), kMagic, sizeof(kMagic)) != 0) {
    throw UserError("cost model blob: not a ktune cost model (bad magic number); retrain it with `ktune model train`");
  }
  r.text(sizeof(kMagic));
  const uint32_t format = r.u32();
  if (format != kEnvelopeFormat) {
    throw UserError("cost model blob: envelope format " + std::to_string(format) + ", expected " +
                    std::to_string(kEnvelopeFormat) + "; retrain it with `ktune model train`");
  }
  ModelBlobHeader h;
  const uint32_t kind_len = r.u32();
  if (kind_len > 256) throw UserError("cost model blob: corrupt header (kind of " + std::to_string(kind_len) + " bytes)");
  h.kind = r.text(kind_len);
  h.feature_version = static_cast<int>(r.u32());
  h.feature_count = static_cast<int>(r.u32());
  return h;
}

}  // namespace

std::vector<uint8_t> wrap_model(const std::string& kind, const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> out(kMagic, kMagic + sizeof(kMagic));
  put_u32(out, kEnvelopeFormat);
  put_u32(out, static_cast<uint32_t>(kind.size()));
  out.insert(out.end(), kind.begin(), kind.end());
  put_u32(out, static_cast<uint32_t>(kFeatureVersion));
  put_u32(out, static_cast<uint32_t>(feature_count()));
  put_u32(out, static_cast<uint32_t>(payload.size()));
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

ModelBlobHeader read_model_header(const std::vector<uint8_t>& blob) {
  Reader r(blob);
  return read_header(r, blob);
}

std::vector<uint8_t> unwrap_model(const std::vector<uint8_t>& blob, const std::string& kind) {
  Reader r(blob);
  const ModelBlobHeader h = read_header(r, blob);
  if (h.kind != kind) {
    throw UserError("cost model blob: holds a \"" + h.kind + "\" model, expected \"" + kind + "\"");
  }
  if (h.feature_version != kFeatureVersion || h.feature_count != feature_count()) {
    throw UserError("cost model blob: trained with feature version " + std::to_string(h.feature_version) + " (" +
                    std::to_string(h.feature_count) + " features), this ktune computes version " +
                    std::to_string(kFeatureVersion) + " (" + std::to_string(feature_count()) +
                    " features); retrain it with `ktune model train`");
  }
  const uint32_t size = r.u32();
  if (r.pos() + size != blob.size()) {
    throw UserError("cost model blob: corrupt (payload of " + std::to_string(size) + " bytes, " +
                    std::to_string(blob.size() - r.pos()) + " present)");
  }
  return std::vector<uint8_t>(blob.begin() + static_cast<std::ptrdiff_t>(r.pos()), blob.end());
}

}  // namespace ktune::cost_model
