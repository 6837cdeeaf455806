#pragma once
// The operator's rendezvous (docs/operator.md, "One attempt"). On the pod network rank 0's
// address exists only once its sandbox is up, and reaches the operator with the kubelet's next
// status report, a second or so later. Instead, rank 0 tells the operator itself once it listens,
// and the other ranks, started beside it, wait there for that address. The protocol is the
// control connection's (newline-delimited JSON, one request and one reply per connection):
//   {"type":"announce","key":K,"address":A} -> {"type":"announced"}
//   {"type":"wait","key":K}                 -> {"type":"address","address":A}
// K is rank 0's pod UID. The operator takes an announcement only from A itself (the connection's
// source address) and checks it against the pod IP the kubelet reports later.
#include "config/cell.hpp"

namespace spiral {

// Rank 0, once it listens: best effort, once per process. A failure is logged; the operator then
// gives the other ranks the pod IP from the kubelet's report instead.
void announce_to_rendezvous(const Cell& cell);

// The other ranks, before they connect: waits for rank 0's address and makes it
// cell.server_address. Throws RunFailure if none came within cell.connect_timeout_ms.
void resolve_rendezvous(Cell& cell);

}  // namespace spiral
