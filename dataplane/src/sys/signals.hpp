#pragma once
// SIGINT/SIGTERM end a run as Failed ("interrupted by signal N") instead of killing it silently,
// so the summary still reaches the termination log.
namespace spiral {

void install_signal_handlers();  // also ignores SIGPIPE (sends use MSG_NOSIGNAL anyway)
int pending_signal();            // 0 when none
void throw_if_signalled();       // RunFailure naming the signal

}  // namespace spiral
