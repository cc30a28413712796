#include "targets/c_identifier.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace ktune::targets {
namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Keywords that are not valid identifiers in C or C++ (the exported header is both).
const std::set<std::string>& keywords() {
  static const std::set<std::string> k = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
      "constexpr", "const_cast", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "mutable", "namespace", "new", "noexcept", "not", "nullptr", "operator", "or", "private",
      "protected", "public", "register", "reinterpret_cast", "restrict", "return", "short", "signed", "sizeof",
      "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
      "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
      "volatile", "wchar_t", "while", "xor",
      // C++ alternative tokens and C++20 keywords.
      "and_eq", "bitand", "bitor", "compl", "not_eq", "or_eq", "xor_eq", "char8_t", "char16_t", "char32_t",
      "concept", "consteval", "constinit", "co_await", "co_return", "co_yield", "requires",
      // C keywords that C++ lacks.
      "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
      "_Static_assert", "_Thread_local"};
  return k;
}

}  // namespace

std::string c_identifier(const std::string& name, const std::string& prefix) {
  std::string body;
  for (char c : name) {
    const char out = is_word_char(c) ? c : '_';
    if (out == '_' && !body.empty() && body.back() == '_') continue;
    body += out;
  }
  std::string id = prefix + body;
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "_" + id;
  if (keywords().count(id)) id += "_";
  return id;
}

std::vector<std::string> unique_c_identifiers(const std::vector<std::string>& names, const std::string& prefix) {
  std::vector<std::string> ids;
  std::set<std::string> taken;
  for (const std::string& name : names) {
    const std::string base = c_identifier(name, prefix);
    std::string id = base;
    for (int n = 2; taken.count(id); ++n) id = base + "_" + std::to_string(n);
    taken.insert(id);
    ids.push_back(id);
  }
  return ids;
}

bool is_c_identifier(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  if (!std::all_of(text.begin(), text.end(), is_word_char)) return false;
  return keywords().count(text) == 0;
}

}  // namespace ktune::targets
