#include "scheduler/isl_context.h"

#include <isl/ctx.h>
#include <isl/options.h>

namespace ktune::scheduler {

void IslContext::Deleter::operator()(isl_ctx* ctx) const { isl_ctx_free(ctx); }

IslContext::IslContext(unsigned long max_operations) : ctx_(isl_ctx_alloc()) {
  isl_options_set_on_error(ctx_.get(), ISL_ON_ERROR_CONTINUE);
  if (max_operations > 0) isl_ctx_set_max_operations(ctx_.get(), max_operations);
}

isl::ctx IslContext::ctx() const { return isl::ctx(ctx_.get()); }

bool IslContext::quota_exceeded() const { return isl_ctx_last_error(ctx_.get()) == isl_error_quota; }

void IslContext::reset_operations() const {
  isl_ctx_reset_operations(ctx_.get());
  isl_ctx_reset_error(ctx_.get());
}

}  // namespace ktune::scheduler
