// The validator table: every check a schedule passes before Halide sees it, in the order
// they run (cheap structural checks first, so a malformed schedule is named by the first
// problem a person would fix). A new validator is one line here.
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {

std::vector<std::unique_ptr<Validator>> default_validators() {
  std::vector<std::unique_ptr<Validator>> v;
  v.push_back(make_structure_validator());
  v.push_back(make_compute_location_validator());
  v.push_back(make_store_location_validator());
  v.push_back(make_compute_with_validator());
  v.push_back(make_vector_width_validator());
  v.push_back(make_dependence_validator());
  v.push_back(make_rfactor_validator());
  v.push_back(make_vector_reduce_validator());
  v.push_back(make_pack_validator());
  v.push_back(make_storage_validator());
  v.push_back(make_buffer_size_validator());
  v.push_back(make_unroll_validator());
  v.push_back(make_inline_expansion_validator());
  v.push_back(make_target_validator());
  v.push_back(make_gpu_mapping_validator());
  v.push_back(make_gpu_limits_validator());
  return v;
}

}  // namespace ktune::scheduler
