#include "common/error.h"

namespace ktune {

std::string format_user_error(const std::string& where, const std::string& field,
                              const std::string& message) {
  std::string out;
  if (!where.empty()) out += where + ": ";
  if (!field.empty()) out += field + ": ";
  return out + message;
}

}  // namespace ktune
