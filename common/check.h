// KTUNE_CHECK: invariant checks that abort with the file and line (the third error tier:
// a broken invariant is a bug, never a user error).
// The message is only built when the check fails:
//   KTUNE_CHECK(rank > 0) << "tensor " << name << " has rank " << rank;
// Halide 14 #undefs its own assert macros, hence our own.
#pragma once

#include <sstream>

namespace ktune::internal {

// Collects the failure message; its destructor prints it and aborts.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  [[noreturn]] ~CheckFailure();
  template <typename T>
  CheckFailure& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
};

// Lets `cond ? (void)0 : Voidify() & CheckFailure(...) << msg` type-check.
struct Voidify {
  void operator&(const CheckFailure&) {}
};

}  // namespace ktune::internal

#define KTUNE_CHECK(condition)                 \
  (condition) ? (void)0                        \
              : ::ktune::internal::Voidify() & \
                    ::ktune::internal::CheckFailure(__FILE__, __LINE__, #condition)
