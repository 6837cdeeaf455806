#pragma once
// The environment capture in a message of its own. The summary's share of the 4 KiB termination
// message shrinks with every repeat grouped in one process, so the capture rides instead in the
// termination message of the operator's relay container (a second container of rank 0's pod,
// which has its own 4 KiB): the data plane writes the message to a file in the pod's shared
// volume, the relay copies it to its termination log. docs/wire.md "Environment".
//
// Format: "spiral-env-v1 " + base64(gzip({"env": <compact environment>, "truncated": "..."})),
// at most max_bytes. Gzip shrinks the repetitive JSON about fivefold; when even that does not
// fit, GPU rows and then NICs after the first go from the end and "truncated" says how many of
// each were kept: cut visibly, never dropped whole.
#include <nlohmann/json.hpp>
#include <string>

namespace spiral {

constexpr const char* kEnvironmentMessagePrefix = "spiral-env-v1 ";

// env: a compact environment (compact_environment), or null with `note` saying why none.
std::string environment_message(nlohmann::ordered_json env, const std::string& note = "", size_t max_bytes = 4096);

// Writes the message to path through a temporary file and a rename, so the relay never copies
// half of it. False (and a line on stderr) when it cannot.
bool write_environment_file(const std::string& path, const nlohmann::ordered_json& env, const std::string& note = "");

// The relay: waits for `from` to appear, copies it to `to` (the relay's termination log) and
// returns 0; 1 when a signal ends the wait first (the pod's deadline) or the copy fails.
int relay_environment(const std::string& from, const std::string& to);

// The facts-only mode (`spiral-dataplane capture-environment TO`): captures this host's
// environment (no link interfaces: only the host's own facts, its GPUs, kernel and CPUs), writes
// its message to `to` (a termination log) and returns 0, 1 when the write fails. A fleet's checks
// between rounds run it: no traffic, no cell.
int capture_environment(const std::string& to);

// The helpers, for the tests.
std::string base64_encode(const std::string& bytes);
std::string gzip_bytes(const std::string& text);

}  // namespace spiral
