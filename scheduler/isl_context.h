// IslContext owns one isl context with an operations limit, so a pathological analysis
// ends with a quota error instead of running forever. Declare it before any isl object so
// it is destroyed last; isl objects never cross threads (one context per thread).
#pragma once

#include <isl/cpp.h>

#include <memory>

namespace ktune::scheduler {

class IslContext {
 public:
  // `max_operations` bounds the work of any single isl computation (0 = unbounded).
  explicit IslContext(unsigned long max_operations = 2'000'000);
  IslContext(const IslContext&) = delete;
  IslContext& operator=(const IslContext&) = delete;

  // Non-owning handle for building isl objects.
  isl::ctx ctx() const;
  // True when the last failure was the operations quota (then results are conservative).
  bool quota_exceeded() const;
  // Clears the quota state before the next computation.
  void reset_operations() const;

 private:
  struct Deleter {
    void operator()(isl_ctx* ctx) const;
  };
  std::unique_ptr<isl_ctx, Deleter> ctx_;
};

}  // namespace ktune::scheduler
