#pragma once
// What both ends of a socket ping-pong share: opening the data socket the way latency mode wants
// it, and reading one whole message, blocking or spinning, until a deadline or a stop.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "config/cell.hpp"
#include "transports/ping_pong/ping_pong_options.hpp"

namespace spiral::ping_pong {

// The socket's kind: a byte stream (tcp) or datagrams (udp).
enum class Carrier { stream, datagram };

constexpr int kBlockingSliceMs = 100;  // a blocking recv() wakes this often to look at the deadline and stop

// Options every latency data socket gets: TCP_NODELAY on streams (a reply must not wait for an
// ACK), SO_BUSY_POLL when asked, the receive timeout that bounds a blocking recv(), the buffers.
void prepare_socket(int fd, const Cell& cell, Carrier carrier);

enum class Got { message, timeout, closed };

// Reads one message of `bytes` into `into`. A stream gathers exactly `bytes` over as many recv()
// calls as it takes (closed: the peer closed at a message boundary; closing inside one throws).
// A datagram socket returns one datagram; `length` gets its real size (MSG_TRUNC), which the
// caller checks. Spinning uses MSG_DONTWAIT and never sleeps. Gives up with timeout once
// now_ns() passes deadline_ns (0: never) or give_up() is true (looked at between waits).
// Throws RunFailure on a socket error. `peer`/`peer_len` (may be null) get a datagram's source.
Got receive_message(int fd, Carrier carrier, bool spin, char* into, size_t bytes, size_t& length, int64_t deadline_ns,
                    const std::function<bool()>& give_up, void* peer = nullptr, unsigned* peer_len = nullptr);

// Writes all of `bytes` (a stream may take several send() calls); a datagram goes in one sendto().
void send_message(int fd, Carrier carrier, const char* from, size_t bytes, const void* peer = nullptr,
                  unsigned peer_len = 0);

}  // namespace spiral::ping_pong
