// Package rendezvous lets a cell's other ranks learn rank 0's address from rank 0 itself,
// through the manager, instead of from the kubelet. On the pod network a pod's IP reaches the
// apiserver only with the kubelet's next status report after its container starts (a relist
// every second), so the operator could start the other ranks only then. With the rendezvous
// they start beside rank 0 and wait here; rank 0 announces its address once it listens
// (dataplane/src/control/rendezvous.hpp has the protocol: the control connection's newline-delimited
// JSON, one request and one reply per connection).
//
// Trust: an announcement is taken only from the address it announces (the connection's source),
// only once per key (rank 0's pod UID, which only readers of the bench's pods know), and the
// controller checks it against the pod IP the kubelet reports (Confirm) before it judges the
// attempt. Until an announcement, the controller's Confirm also publishes the kubelet's pod IP,
// so the other ranks get an address even where rank 0 cannot reach the manager.
package rendezvous

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"
)

const (
	// keep is how long an address is kept for late waiters; an attempt's peers ask within
	// seconds of rank 0's start, and a cell's deadline bounds the rest.
	keep = 15 * time.Minute
	// maxKeys bounds the keys held at once (announced or waited for): at 15 minutes each, far
	// above the attempts a manager starts in that time.
	maxKeys = 16384
	// maxConns bounds the connections served at once; each waiting rank holds one.
	maxConns = 4096
	// requestTimeout bounds reading a request line.
	requestTimeout = 5 * time.Second
	maxLine        = 1024
)

// Server holds the addresses rank 0s announced, by key, and answers the other ranks' waits.
// Its zero value is not usable: use New.
type Server struct {
	// Bind is where it listens, for example ":9445".
	Bind string
	// Advertise is the host:port cell pods reach it at (the manager's pod IP and Bind's port).
	Advertise string

	mu    sync.Mutex
	keys  map[string]*entry
	conns chan struct{}
	now   func() time.Time
}

type entry struct {
	address string
	from    string // "rank 0" or "the kubelet"
	known   chan struct{}
	touched time.Time
}

// New returns a server that listens at bind and tells cell pods to reach it at advertise.
func New(bind, advertise string) *Server {
	return &Server{Bind: bind, Advertise: advertise, keys: map[string]*entry{}, conns: make(chan struct{}, maxConns), now: time.Now}
}

// NeedLeaderElection: only the leader starts attempts, so only it is announced to.
func (s *Server) NeedLeaderElection() bool { return true }

// Start listens at Bind until ctx ends (controller-runtime's manager.Runnable).
func (s *Server) Start(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.Bind)
	if err != nil {
		return fmt.Errorf("rendezvous: listen %s: %w", s.Bind, err)
	}
	return s.Serve(ctx, ln)
}

// Serve answers connections from ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	go func() { <-ctx.Done(); _ = ln.Close() }()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return fmt.Errorf("rendezvous: accept: %w", err)
		}
		select {
		case s.conns <- struct{}{}:
			go func() { defer func() { <-s.conns }(); s.serve(ctx, c) }()
		default:
			reply(c, errorMessage("the rendezvous is serving its most connections; ask again"))
			_ = c.Close()
		}
	}
}

type message struct {
	Type    string `json:"type"`
	Key     string `json:"key,omitempty"`
	Address string `json:"address,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

func errorMessage(reason string) message { return message{Type: "error", Reason: reason} }

func reply(c net.Conn, m message) {
	b, _ := json.Marshal(m)
	_ = c.SetWriteDeadline(time.Now().Add(requestTimeout))
	_, _ = c.Write(append(b, '\n'))
}

func (s *Server) serve(ctx context.Context, c net.Conn) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(requestTimeout))
	line, err := bufio.NewReaderSize(c, maxLine).ReadSlice('\n')
	if err != nil {
		return
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil || !validKey(m.Key) {
		reply(c, errorMessage("want one JSON line: {\"type\":\"announce\"|\"wait\",\"key\":<rank 0's pod UID>,...}"))
		return
	}
	switch m.Type {
	case "announce":
		reply(c, s.announce(m, c.RemoteAddr()))
	case "wait":
		_ = c.SetReadDeadline(time.Time{})
		reply(c, s.wait(ctx, m.Key))
	default:
		reply(c, errorMessage(fmt.Sprintf("unknown request %q: announce or wait", m.Type)))
	}
}

// announce takes rank 0's address, only from that address.
func (s *Server) announce(m message, remote net.Addr) message {
	ip := net.ParseIP(m.Address).To4()
	if ip == nil {
		return errorMessage(fmt.Sprintf("address %q is not an IPv4 address", m.Address))
	}
	from, _, _ := net.SplitHostPort(remote.String())
	if src := net.ParseIP(from); src == nil || !src.Equal(ip) {
		return errorMessage(fmt.Sprintf("%s announced %s: a rank announces only its own address", from, m.Address))
	}
	got, err := s.publish(m.Key, ip.String(), "rank 0")
	if err != nil {
		return errorMessage(err.Error())
	}
	if got != ip.String() {
		return errorMessage(fmt.Sprintf("key %s already has address %s", m.Key, got))
	}
	return message{Type: "announced"}
}

func (s *Server) wait(ctx context.Context, key string) message {
	s.mu.Lock()
	e, err := s.entryLocked(key)
	s.mu.Unlock()
	if err != nil {
		return errorMessage(err.Error())
	}
	select {
	case <-e.known:
		s.mu.Lock()
		defer s.mu.Unlock()
		return message{Type: "address", Address: e.address}
	case <-ctx.Done():
		return errorMessage("the manager is stopping")
	case <-time.After(keep):
		return errorMessage("no address within " + keep.String())
	}
}

// publish records key's address unless it has one, and returns the one it has.
func (s *Server) publish(key, address, from string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.entryLocked(key)
	if err != nil {
		return "", err
	}
	if e.address == "" {
		e.address, e.from = address, from
		close(e.known)
	}
	return e.address, nil
}

func (s *Server) entryLocked(key string) (*entry, error) {
	now := s.now()
	if e, ok := s.keys[key]; ok {
		e.touched = now
		return e, nil
	}
	if len(s.keys) >= maxKeys {
		for k, e := range s.keys {
			if now.Sub(e.touched) > keep {
				delete(s.keys, k)
			}
		}
		if len(s.keys) >= maxKeys {
			return nil, fmt.Errorf("the rendezvous holds its most keys (%d); ask again", maxKeys)
		}
	}
	e := &entry{known: make(chan struct{}), touched: now}
	s.keys[key] = e
	return e, nil
}

// Confirm holds rank 0's announcement against the pod IP the kubelet reported: "" when they
// agree or nothing was announced (the pod IP is then published for the waiting ranks), else
// why the attempt cannot be trusted.
func (s *Server) Confirm(key, podIP string) string {
	got, err := s.publish(key, podIP, "the kubelet")
	if err != nil || got == podIP {
		return ""
	}
	return fmt.Sprintf("rank 0's address was announced to the rendezvous as %s, but the kubelet reports its pod at %s: the other ranks were sent elsewhere", got, podIP)
}

// validKey: a pod UID (36 characters), or any short token of the same alphabet.
func validKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
