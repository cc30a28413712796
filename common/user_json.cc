#include "common/user_json.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "common/error.h"

namespace ktune {
namespace {

using nlohmann::json;

std::string line_and_column(const std::string& text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// The library's message without its "[json.exception.parse_error.101] parse error at ...:"
// prefix, which names positions the user cannot map to the file.
std::string library_reason(const std::string& what) {
  for (const char* marker : {"syntax error", "number overflow", "invalid string", "invalid UTF-8"}) {
    const size_t pos = what.find(marker);
    if (pos != std::string::npos) return what.substr(pos);
  }
  const size_t bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

// Where the parser is while it reads: one frame per open array or object, so that a
// duplicate key can be reported with its JSON path.
class DocumentWalk {
 public:
  explicit DocumentWalk(std::string file) : file_(std::move(file)) {}

  bool on_event(int depth, json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        count_element();
        if (depth >= kMaxJsonDepth) {
          std::string where = path();
          if (where.size() > 40) where = where.substr(0, 40) + "...";
          throw UserError(format_user_error(file_, where, "nested more than " + std::to_string(kMaxJsonDepth) +
                                                               " levels deep; ktune's files nest a few levels"));
        }
        frames_.push_back(Frame{event == json::parse_event_t::object_start, {}, "", -1});
        break;
      case json::parse_event_t::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) {
          throw UserError(format_user_error(file_, path(), "the key \"" + top.key + "\" appears twice in one object"));
        }
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        break;
      case json::parse_event_t::value:
        count_element();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool is_object;
    std::set<std::string> keys;
    std::string key;    // the last key read (objects)
    int64_t index;      // the index of the last element (arrays)
  };

  void count_element() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
  }

  std::string path() const {
    std::string out;
    for (const Frame& f : frames_) {
      if (f.is_object) {
        if (!f.key.empty()) out += (out.empty() ? "" : ".") + f.key;
      } else if (f.index >= 0) {
        out += "[" + std::to_string(f.index) + "]";
      }
    }
    return out.empty() ? "(root)" : out;
  }

  std::string file_;
  std::vector<Frame> frames_;
};

}  // namespace

std::string read_user_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UserError(format_user_error(path, "", "is a directory; expected a " + what));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(format_user_error(path, "", "cannot open " + what + " (does it exist?)"));
  std::stringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw UserError(format_user_error(path, "", "cannot read " + what));
  return buf.str();
}

json parse_user_json(const std::string& text, const std::string& file) {
  DocumentWalk walk(file);
  try {
    return json::parse(text, [&walk](int depth, json::parse_event_t event, json& parsed) {
      return walk.on_event(depth, event, parsed);
    });
  } catch (const json::parse_error& e) {
    throw UserError(format_user_error(file, "", "invalid JSON at " + line_and_column(text, e.byte) + ": " +
                                                    library_reason(e.what())));
  } catch (const json::out_of_range& e) {
    throw UserError(format_user_error(file, "", "invalid JSON: " + library_reason(e.what()) +
                                                    " (numbers must fit in a 64-bit float)"));
  } catch (const json::exception& e) {
    throw UserError(format_user_error(file, "", "invalid JSON: " + library_reason(e.what())));
  }
}

json read_user_json(const std::string& path, const std::string& what) {
  return parse_user_json(read_user_file(path, what), path);
}

}  // namespace ktune
