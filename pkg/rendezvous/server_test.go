package rendezvous

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// start serves a Server on a loopback port and returns it with its address.
func start(t *testing.T) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New("", ln.Addr().String())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return s, ln.Addr().String()
}

// ask sends one request line from the local address from ("" for any) and reads the reply.
func ask(t *testing.T, at, from, line string) message {
	t.Helper()
	d := net.Dialer{Timeout: 2 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c, err := d.Dial("tcp", at)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	b, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatalf("%s: no reply: %v", line, err)
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: reply %q: %v", line, b, err)
	}
	return m
}

const key = "0b8c8f5e-3f0a-4c57-9d2e-7a1f2b3c4d5e"

func TestAWaitingRankGetsTheAddressRankZeroAnnouncesLater(t *testing.T) {
	_, at := start(t)
	got := make(chan message, 1)
	go func() { got <- ask(t, at, "", `{"type":"wait","key":"`+key+`"}`) }()
	select {
	case m := <-got:
		t.Fatalf("answered before any announcement: %+v", m)
	case <-time.After(200 * time.Millisecond):
	}
	if m := ask(t, at, "127.0.0.1", `{"type":"announce","key":"`+key+`","address":"127.0.0.1"}`); m.Type != "announced" {
		t.Fatalf("announce: %+v", m)
	}
	if m := <-got; m.Type != "address" || m.Address != "127.0.0.1" {
		t.Fatalf("wait: %+v, want address 127.0.0.1", m)
	}
	// A rank that asks after the announcement is answered at once.
	if m := ask(t, at, "", `{"type":"wait","key":"`+key+`"}`); m.Address != "127.0.0.1" {
		t.Fatalf("late wait: %+v", m)
	}
}

func TestARankAnnouncesOnlyItsOwnAddressAndOnlyOnce(t *testing.T) {
	s, at := start(t)
	m := ask(t, at, "127.0.0.1", `{"type":"announce","key":"`+key+`","address":"10.9.9.9"}`)
	if m.Type != "error" || !strings.Contains(m.Reason, "only its own address") {
		t.Fatalf("announcing another address: %+v, want an error", m)
	}
	if m := ask(t, at, "127.0.0.2", `{"type":"announce","key":"`+key+`","address":"127.0.0.2"}`); m.Type != "announced" {
		t.Fatalf("first announce: %+v", m)
	}
	m = ask(t, at, "127.0.0.3", `{"type":"announce","key":"`+key+`","address":"127.0.0.3"}`)
	if m.Type != "error" || !strings.Contains(m.Reason, "already has address 127.0.0.2") {
		t.Fatalf("second announce: %+v, want refused", m)
	}
	// The kubelet's pod IP decides whom to believe.
	if msg := s.Confirm(key, "127.0.0.3"); !strings.Contains(msg, "announced to the rendezvous as 127.0.0.2") ||
		!strings.Contains(msg, "kubelet reports its pod at 127.0.0.3") {
		t.Fatalf("Confirm against another pod IP: %q", msg)
	}
	if msg := s.Confirm(key, "127.0.0.2"); msg != "" {
		t.Fatalf("Confirm against the announced IP: %q", msg)
	}
}

func TestWithoutAnAnnouncementTheKubeletsPodIPIsPublished(t *testing.T) {
	s, at := start(t)
	got := make(chan message, 1)
	go func() { got <- ask(t, at, "", `{"type":"wait","key":"`+key+`"}`) }()
	time.Sleep(100 * time.Millisecond)
	if msg := s.Confirm(key, "10.1.2.3"); msg != "" {
		t.Fatalf("Confirm: %q", msg)
	}
	if m := <-got; m.Address != "10.1.2.3" {
		t.Fatalf("wait: %+v, want the kubelet's 10.1.2.3", m)
	}
	// rank 0 announcing the same address later is fine; another is not.
	if m := ask(t, at, "127.0.0.1", `{"type":"announce","key":"`+key+`","address":"127.0.0.1"}`); m.Type != "error" {
		t.Fatalf("announce after the kubelet's address: %+v", m)
	}
}

func TestMalformedRequestsAreAnsweredWithWhatToSend(t *testing.T) {
	_, at := start(t)
	for _, line := range []string{`hello`, `{"type":"wait"}`, `{"type":"wait","key":"Not/A/Key"}`, `{"type":"dance","key":"abc"}`} {
		if m := ask(t, at, "", line); m.Type != "error" || m.Reason == "" {
			t.Errorf("%s: %+v, want an error with a reason", line, m)
		}
	}
}

func TestKeysAreBounded(t *testing.T) {
	s := New("", "")
	now := time.Unix(0, 0)
	s.now = func() time.Time { return now }
	for i := 0; i < maxKeys; i++ {
		if _, err := s.publish("k-"+strconv.Itoa(i), "10.0.0.1", "rank 0"); err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
	}
	if _, err := s.publish("one-more", "10.0.0.1", "rank 0"); err == nil {
		t.Fatal("a key beyond the bound was taken while every key is fresh")
	}
	now = now.Add(keep + time.Second)
	if _, err := s.publish("one-more", "10.0.0.1", "rank 0"); err != nil {
		t.Fatalf("after the keys expired: %v", err)
	}
}
