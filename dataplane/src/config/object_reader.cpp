#include "config/object_reader.hpp"

#include "sys/errors.hpp"

namespace spiral {

using nlohmann::json;

void refuse_key(const std::string& path, const std::string& what) {
  throw BadInput("cell: \"" + path + "\" " + what);
}

std::string shown(const json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

ObjectReader::ObjectReader(const json& obj, std::string path, std::set<std::string> known)
    : obj_(obj), path_(std::move(path)), known_(std::move(known)) {
  if (!obj_.is_object()) {
    if (path_.empty()) throw BadInput("cell: must be a JSON object, got " + shown(obj_));
    refuse_key(path_, "must be an object, got " + shown(obj_));
  }
  for (const auto& item : obj_.items()) {
    if (!known_.count(item.key())) throw BadInput("cell: unknown key \"" + key_path(item.key()) + "\"");
  }
}

const json* ObjectReader::get(const std::string& key) const {
  auto it = obj_.find(key);
  return it == obj_.end() || it->is_null() ? nullptr : &*it;
}

int64_t ObjectReader::integer(const std::string& key, int64_t lo, int64_t hi, int64_t fallback) const {
  const json* v = get(key);
  if (!v) return fallback;
  return checked_integer(*v, key_path(key), lo, hi);
}

uint64_t ObjectReader::millis_from_seconds(const std::string& key, bool allow_zero, uint64_t fallback) const {
  const json* v = get(key);
  if (!v) return fallback;
  if (!v->is_number()) refuse_key(key_path(key), "must be a number of seconds, got " + shown(*v));
  double s = v->get<double>();
  if (!(s >= 0) || s > 86400 || (!allow_zero && s <= 0))
    refuse_key(key_path(key), std::string("must be ") + (allow_zero ? "in 0..86400" : "in (0, 86400]") +
                                  " seconds, got " + shown(*v));
  return static_cast<uint64_t>(s * 1000.0 + 0.5);
}

bool ObjectReader::boolean(const std::string& key, bool fallback) const {
  const json* v = get(key);
  if (!v) return fallback;
  if (!v->is_boolean()) refuse_key(key_path(key), "must be true or false, got " + shown(*v));
  return v->get<bool>();
}

std::string ObjectReader::text(const std::string& key, size_t max_len, std::string fallback) const {
  const json* v = get(key);
  if (!v) return fallback;
  if (!v->is_string()) refuse_key(key_path(key), "must be a string, got " + shown(*v));
  auto s = v->get<std::string>();
  if (s.size() > max_len) refuse_key(key_path(key), "is longer than " + std::to_string(max_len) + " characters");
  return s;
}

int64_t ObjectReader::checked_integer(const json& v, const std::string& path, int64_t lo, int64_t hi) {
  std::string range = "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
  if (!v.is_number_integer()) refuse_key(path, "must be " + range + ", got " + shown(v));
  // json keeps non-negative integers unsigned: compare in the matching type
  bool in_range = v.is_number_unsigned()
                      ? v.get<uint64_t>() <= static_cast<uint64_t>(hi) &&
                            (lo <= 0 || v.get<uint64_t>() >= static_cast<uint64_t>(lo))
                      : v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
  if (!in_range) refuse_key(path, "must be " + range + ", got " + shown(v));
  return v.get<int64_t>();
}

}  // namespace spiral
