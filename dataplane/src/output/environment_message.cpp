#include "output/environment_message.hpp"

#include "output/environment_json.hpp"

#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "sys/signals.hpp"

namespace spiral {

using json = nlohmann::ordered_json;

std::string gzip_bytes(const std::string& text) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer, as Go's compress/gzip reads.
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? out : "";
}

std::string base64_encode(const std::string& bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

namespace {

std::string encode(const json& body) {
  return kEnvironmentMessagePrefix +
         base64_encode(gzip_bytes(body.dump(-1, ' ', false, json::error_handler_t::replace)));
}

size_t count(const json& env, const char* key) { return env.contains(key) && env[key].is_array() ? env[key].size() : 0; }

}  // namespace

std::string environment_message(json env, const std::string& note, size_t max_bytes) {
  json body = {{"env", env}, {"truncated", ""}, {"note", note.substr(0, 200)}};
  std::string text = encode(body);
  if (text.size() <= max_bytes || !env.is_object()) return text;
  // Too big even compressed: GPU rows go first, then NICs after the first (the link's own NIC
  // names the ceiling), each from the end, until it fits; the message says what was kept.
  const size_t gpus = count(env, "gpus"), nics = count(env, "nics");
  while (text.size() > max_bytes) {
    json& e = body["env"];
    if (count(e, "gpus") > 0) {
      e["gpus"].erase(e["gpus"].size() - 1);
    } else if (count(e, "nics") > 1) {
      e["nics"].erase(e["nics"].size() - 1);
    } else {
      // Only a huge string is left (no real host has one): keep what names the build.
      e = json{{"dataplane_version", env.value("dataplane_version", "")},
               {"dataplane_revision", env.value("dataplane_revision", "")}};
      body["truncated"] = "everything but the data plane's version: the capture did not fit " +
                          std::to_string(max_bytes) + " bytes";
      return encode(body);
    }
    body["truncated"] = "kept " + std::to_string(count(e, "gpus")) + " of " + std::to_string(gpus) + " GPUs, " +
                        std::to_string(count(e, "nics")) + " of " + std::to_string(nics) + " NICs to fit " +
                        std::to_string(max_bytes) + " bytes";
    text = encode(body);
  }
  return text;
}

bool write_environment_file(const std::string& path, const json& env, const std::string& note) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << environment_message(env, note);
    if (!out.good()) {
      std::cerr << "spiral-dataplane: cannot write environment_file \"" << tmp << "\"\n";
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::cerr << "spiral-dataplane: cannot rename \"" << tmp << "\" to \"" << path << "\"\n";
    return false;
  }
  return true;
}

int relay_environment(const std::string& from, const std::string& to) {
  install_signal_handlers();
  for (;;) {
    std::ifstream in(from, std::ios::binary);
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      std::ofstream out(to, std::ios::trunc);
      out << text.str();
      return out.good() ? 0 : 1;
    }
    if (pending_signal()) return 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

int capture_environment(const std::string& to) {
  std::ofstream out(to, std::ios::trunc);
  out << environment_message(compact_environment(environment_json({})));
  return out.good() ? 0 : 1;
}

}  // namespace spiral
