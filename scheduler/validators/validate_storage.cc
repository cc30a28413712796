// Storage orders: a Func stores its buffer in another order only when it has a buffer of
// its own (computed at root or at a loop, not inlined), that buffer is not an output (the
// caller's buffer has its own layout), and the order lists each of its pure variables once.
// A storage order is a CPU decision. So is a row alignment, which pads each row of a buffer
// computed at a loop.
#include <algorithm>

#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

std::optional<std::string> check_storage(const FuncSchedule& fs, const FuncAnalysis& fa) {
  const std::string where = fs.func + " storage: ";
  if (fs.compute.kind == ComputeLocation::Kind::kInline) return where + "an inlined Func has no buffer to order";
  if (fa.is_output) return where + "an output is stored as its caller's buffer is laid out";
  std::vector<std::string> args = fa.args, storage = fs.storage;
  std::sort(args.begin(), args.end());
  std::sort(storage.begin(), storage.end());
  if (storage != args) return where + "must list each of the Func's " + std::to_string(args.size()) + " pure variables once";
  return std::nullopt;
}

std::optional<std::string> check_row_alignment(const FuncSchedule& fs, const Analysis& a) {
  if (fs.compute.row_alignment == 0) return std::nullopt;
  const std::string where = fs.func + " row_alignment: ";
  if (a.target.is_gpu()) return where + "padding rows is a CPU decision";
  // An output is at root (the compute_location validator), stored as its caller lays it out.
  if (fs.compute.kind != ComputeLocation::Kind::kAt) return where + "only a Func computed at a loop is padded";
  const FuncAnalysis* fa = a.find(fs.func);
  if (fa && fa->args.empty()) return where + "a Func without dimensions has no rows";
  return std::nullopt;
}

class StorageValidator : public Validator {
 public:
  std::string_view name() const override { return "storage"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (const FuncSchedule& fs : s.funcs) {
      if (auto error = check_row_alignment(fs, a)) return error;
      if (fs.storage.empty()) continue;
      if (a.target.is_gpu()) return fs.func + " storage: a storage order is a CPU decision";
      const FuncAnalysis* fa = a.find(fs.func);
      if (!fa) continue;  // the structure validator names unknown Funcs
      if (auto error = check_storage(fs, *fa)) return error;
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_storage_validator() { return std::make_unique<StorageValidator>(); }

}  // namespace ktune::scheduler
