package contract

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/plan"
	"github.com/spiralbench/spiralbench/pkg/rendezvous"
	"github.com/spiralbench/spiralbench/pkg/summary"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The pods' data planes, as the operator renders them for a TCP bench on the pod network, find
// each other through the manager's rendezvous: the client starts first and waits, the server
// announces itself once it listens, and the repeat runs. Both are the real binary; the
// rendezvous is the manager's own server. What the kubelet would do is done here: $(VAR) in the
// arguments expanded from the pod IP (loopback) and UID, the files moved to a temporary folder,
// and the ports moved to free ones.
func TestRanksFindEachOtherThroughTheManagersRendezvous(t *testing.T) {
	binary := dataplaneBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := rendezvous.New("", ln.Addr().String())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Serve(ctx, ln) }()

	sb := sbtesting.MakeSpiralBench("rdv", "lab").Transport(sbv1.TransportTCP).Payloads(8000).Obj()
	sb.Spec.Run = sbv1.RunSpec{Seconds: 1, WarmupSeconds: ptr.To[int32](0), Repeats: 1}
	cells, err := plan.Expand(&sb.Spec)
	if err != nil {
		t.Fatal(err)
	}
	in, err := cellpod.NewInput(sb, cells[0], 0, 1, 0, []string{"node-a"})
	if err != nil {
		t.Fatal(err)
	}
	in.Rendezvous, in.PeersFirst, in.RendezvousKey = srv.Advertise, true, "5f0c1d2e-0000-4000-8000-000000000001"
	dir, base := t.TempDir(), freePort(t)
	kubelet := strings.NewReplacer("$(SPIRAL_POD_IP)", "127.0.0.1", "$(SPIRAL_POD_UID)", in.RendezvousKey, "/run/spiral", dir)
	run := func(rank int, role string) *exec.Cmd {
		args := cellpod.Build(in, in.Ranks[rank], "").Spec.Containers[0].Args
		for i := range args {
			args[i] = kubelet.Replace(args[i])
			if args[i] == "/dev/termination-log" {
				args[i] = filepath.Join(dir, role+".summary")
			}
			if i > 0 && args[i-1] == "--base-port" {
				args[i] = strconv.Itoa(base)
			}
		}
		return exec.Command(binary, args...)
	}
	client := run(1, "client")
	var clientOut strings.Builder
	client.Stdout, client.Stderr = &clientOut, &clientOut
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the client waits at the rendezvous before the server runs
	if out, err := run(0, "server").CombinedOutput(); err != nil {
		t.Fatalf("server: %v\n%s", err, out)
	}
	if err := client.Wait(); err != nil {
		t.Fatalf("client: %v\n%s", err, clientOut.String())
	}
	for _, role := range []string{"server", "client"} {
		s := readSummary(t, filepath.Join(dir, role+".summary"))
		if s.State != "Valid" || s.RXMbps+s.TXMbps <= 0 {
			t.Errorf("%s: state %s, rx %d tx %d Mb/s", role, s.State, s.RXMbps, s.TXMbps)
		}
	}
	if msg := srv.Confirm(in.RendezvousKey, "127.0.0.1"); msg != "" {
		t.Errorf("the server announced another address: %s", msg)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := ln.Addr().(*net.TCPAddr).Port
		_ = ln.Close()
		if p > 1 {
			return p // the control port is base - 1
		}
	}
}

func readSummary(t *testing.T, path string) summary.Summary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.Parse(string(b))
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return s
}

// A rank whose rendezvous never answers fails at its connect timeout with a summary that says
// where it waited and what to change, not a hang or an empty message.
func TestARankWhoseRendezvousNeverAnswersFailsSayingWhy(t *testing.T) {
	binary := dataplaneBinary(t)
	summaryFile := filepath.Join(t.TempDir(), "summary")
	dead := "127.0.0.1:" + strconv.Itoa(freePort(t)) // nothing listens there
	out, err := exec.Command(binary, "client", "--transport", "tcp", "--seconds", "1", "--rendezvous", dead,
		"--rendezvous-key", "5f0c1d2e-0000-4000-8000-000000000002", "--connect-timeout-ms", "600",
		"--summary-file", summaryFile).CombinedOutput()
	if code := exitCode(err); code != 1 {
		t.Fatalf("exit %d (%v), want 1, a run failure\n%s", code, err, out)
	}
	s := readSummary(t, summaryFile)
	if s.State != "Failed" || !strings.Contains(s.Reason, "rendezvous "+dead) || !strings.Contains(s.Reason, "rendezvous.enabled=false") {
		t.Errorf("summary %s %q: want Failed naming the rendezvous and the chart value", s.State, s.Reason)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
