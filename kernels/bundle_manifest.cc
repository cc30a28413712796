#include "kernels/bundle_manifest.h"

#include <filesystem>
#include <set>

#include "common/error.h"
#include "common/user_json.h"

namespace ktune::kernels {
namespace {

nlohmann::ordered_json tensor_files_json(const std::vector<BundleTensorFile>& files) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const BundleTensorFile& f : files) {
    out.push_back({{"name", f.name}, {"dtype", f.dtype}, {"shape", f.shape}, {"mins", f.mins}, {"file", f.file}});
  }
  return out;
}

nlohmann::ordered_json candidate_json(const BundleCandidate& c) {
  return {{"id", c.id},
          {"function", c.function},
          {"workload_name", c.workload_name},
          {"workload_key", c.workload_key},
          {"spec", c.spec},
          {"origin", c.origin},
          {"schedule_hash", c.schedule_hash},
          {"schedule", c.schedule.to_json()},
          {"inputs", tensor_files_json(c.inputs)},
          {"outputs", tensor_files_json(c.outputs)}};
}

// Reads fields of one JSON object, each error naming the file and the field's path.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& object, std::string path, std::string at)
      : object_(object), path_(std::move(path)), at_(std::move(at)) {
    if (!object_.is_object()) fail("", "is not an object");
  }

  template <typename T>
  T get(const char* field) const {
    if (!object_.contains(field)) fail(field, "is missing");
    try {
      return object_.at(field).get<T>();
    } catch (const nlohmann::json::exception&) {
      fail(field, "has the wrong type: " + object_.at(field).dump());
    }
  }

  const nlohmann::json& at(const char* field) const {
    if (!object_.contains(field)) fail(field, "is missing");
    return object_.at(field);
  }

  std::string where(const std::string& field) const { return at_.empty() ? field : at_ + "." + field; }

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw UserError(format_user_error(path_, where(field), what));
  }

 private:
  const nlohmann::json& object_;
  std::string path_;
  std::string at_;
};

std::vector<BundleTensorFile> tensor_files_from_json(const FieldReader& parent, const char* field,
                                                      const std::string& path) {
  const nlohmann::json& list = parent.at(field);
  if (!list.is_array()) parent.fail(field, "is not an array");
  std::vector<BundleTensorFile> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const FieldReader f(list[i], path, parent.where(field) + "[" + std::to_string(i) + "]");
    out.push_back({f.get<std::string>("name"), f.get<std::string>("dtype"), f.get<std::vector<int64_t>>("shape"),
                   f.get<std::vector<int64_t>>("mins"), f.get<std::string>("file")});
  }
  return out;
}

BundleCandidate candidate_from_json(const nlohmann::json& j, const std::string& path, const std::string& at) {
  const FieldReader f(j, path, at);
  BundleCandidate c;
  c.id = f.get<int64_t>("id");
  c.function = f.get<std::string>("function");
  c.workload_name = f.get<std::string>("workload_name");
  c.workload_key = f.get<std::string>("workload_key");
  c.spec = f.get<std::string>("spec");
  c.origin = f.get<std::string>("origin");
  c.schedule_hash = f.get<std::string>("schedule_hash");
  c.schedule = scheduler::Schedule::from_json(f.at("schedule"), path + ": " + f.where("schedule"));
  c.inputs = tensor_files_from_json(f, "inputs", path);
  c.outputs = tensor_files_from_json(f, "outputs", path);
  return c;
}

}  // namespace

nlohmann::ordered_json to_json(const BundleManifest& m) {
  nlohmann::ordered_json j;
  j["format"] = m.format;
  j["ktune_version"] = m.ktune_version;
  j["halide_version"] = m.halide_version;
  j["halide_target"] = m.halide_target;
  j["seed"] = m.seed;
  j["device"] = {{"name", m.device_name},
                 {"kind", targets::to_string(m.device.kind)},
                 {"key", m.device_key},
                 {"description", targets::to_json(m.device)}};
  j["runner"] = m.runner;
  j["library"] = m.library;
  j["candidates"] = nlohmann::ordered_json::array();
  for (const BundleCandidate& c : m.candidates) j["candidates"].push_back(candidate_json(c));
  return j;
}

BundleManifest bundle_manifest_from_json(const nlohmann::json& json, const std::string& path) {
  const FieldReader f(json, path, "");
  BundleManifest m;
  m.format = f.get<std::string>("format");
  if (m.format != kBundleFormat) {
    f.fail("format", "is \"" + m.format + "\"; this ktune reads \"" + kBundleFormat + "\" (rebuild the bundle)");
  }
  m.ktune_version = f.get<std::string>("ktune_version");
  m.halide_version = f.get<std::string>("halide_version");
  m.halide_target = f.get<std::string>("halide_target");
  m.seed = f.get<uint64_t>("seed");
  const FieldReader device(f.at("device"), path, "device");
  m.device_name = device.get<std::string>("name");
  m.device_key = device.get<std::string>("key");
  m.device = targets::device_from_json(device.at("description"), path + ": device.description");
  if (targets::device_key(m.device) != m.device_key) device.fail("key", "does not match the device description");
  m.runner = f.get<std::string>("runner");
  m.library = f.get<std::string>("library");
  const nlohmann::json& list = f.at("candidates");
  if (!list.is_array()) f.fail("candidates", "is not an array");
  std::set<int64_t> ids;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = "candidates[" + std::to_string(i) + "]";
    m.candidates.push_back(candidate_from_json(list[i], path, at));
    if (!ids.insert(m.candidates.back().id).second) f.fail(at + ".id", "repeats an earlier candidate's id");
  }
  return m;
}

std::string bundle_manifest_path(const std::string& bundle_dir) {
  return (std::filesystem::path(bundle_dir) / "manifest.json").string();
}

BundleManifest read_bundle_manifest(const std::string& bundle_dir) {
  const std::string path = bundle_manifest_path(bundle_dir);
  return bundle_manifest_from_json(read_user_json(path, "bundle manifest"), path);
}

}  // namespace ktune::kernels
