#pragma once
// Reading one JSON object of a cell description: typed, range-checked getters whose refusals name
// the key, and a refusal of every key the object does not know. Shared by cell_parse.cpp and the
// per-transport parsers (raw_parse.cpp, rdma_parse.cpp).
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

namespace spiral {

// Throws BadInput("cell: \"<path>\" <what>").
[[noreturn]] void refuse_key(const std::string& path, const std::string& what);

// A JSON value as shown in a refusal, cut to 40 characters.
std::string shown(const nlohmann::json& v);

class ObjectReader {
 public:
  // path: where the object sits ("" for the cell itself); known: every key it may hold.
  ObjectReader(const nlohmann::json& obj, std::string path, std::set<std::string> known);

  const nlohmann::json* get(const std::string& key) const;  // nullptr when absent or null
  bool has(const std::string& key) const { return get(key) != nullptr; }
  std::string key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  int64_t integer(const std::string& key, int64_t lo, int64_t hi, int64_t fallback) const;
  uint64_t millis_from_seconds(const std::string& key, bool allow_zero, uint64_t fallback) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string text(const std::string& key, size_t max_len, std::string fallback) const;

  // One of the named choices; the refusal lists them ("must be a, b or c").
  template <typename Enum>
  Enum one_of(const std::string& key, Enum fallback,
              std::initializer_list<std::pair<const char*, Enum>> choices) const {
    if (!has(key)) return fallback;
    const std::string value = text(key, 32, "");
    std::string names;
    size_t i = 0;
    for (const auto& [name, e] : choices) {
      if (value == name) return e;
      if (i > 0) names += i + 1 == choices.size() ? " or " : ", ";
      names += name;
      ++i;
    }
    refuse_key(key_path(key), "must be " + names + ", got \"" + value + "\"");
  }

  static int64_t checked_integer(const nlohmann::json& v, const std::string& path, int64_t lo, int64_t hi);

 private:
  const nlohmann::json& obj_;
  std::string path_;
  std::set<std::string> known_;
};

}  // namespace spiral
