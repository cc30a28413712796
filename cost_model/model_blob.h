// The envelope every saved cost model is wrapped in: a magic number, the envelope
// format, the model kind, kFeatureVersion and the feature count, then the model's own
// bytes. Reading checks all of them, so a model trained on other features is refused
// instead of silently mis-ranking.
//
//   std::vector<uint8_t> blob = wrap_model("xgboost-rank", payload);
//   std::vector<uint8_t> payload = unwrap_model(blob, "xgboost-rank");  // UserError if wrong
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ktune::cost_model {

// What the envelope says about a blob.
struct ModelBlobHeader {
  std::string kind;         // CostModel::kind() of the model inside
  int feature_version = 0;  // kFeatureVersion it was trained with
  int feature_count = 0;    // feature_count() it was trained with
};

// `payload` wrapped with the current feature version and count.
std::vector<uint8_t> wrap_model(const std::string& kind, const std::vector<uint8_t>& payload);

// Reads the envelope; throws ktune::UserError for a blob that is not a ktune model.
ModelBlobHeader read_model_header(const std::vector<uint8_t>& blob);

// The payload of a blob of `kind` made with the current features. Throws ktune::UserError
// naming what differs (kind, feature version or count) or that the blob is corrupt.
std::vector<uint8_t> unwrap_model(const std::vector<uint8_t>& blob, const std::string& kind);

}  // namespace ktune::cost_model
