package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// notOnTheLocalCluster lists the README lines that need hardware this machine lacks, each with
// the reason. A pattern that matches no README line fails the test, so the list cannot go stale.
// Every README line runs here today, so it is empty.
var notOnTheLocalCluster = map[string]string{}

// readmeCommands returns the kubectl, sbctl and kubectl-plugin lines of README.md's sh blocks,
// without their trailing comments, in order.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	comment := regexp.MustCompile(`\s+#.*$`)
	var commands []string
	inBlock := false
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock = line == "```sh"
		case inBlock && (strings.HasPrefix(line, "kubectl ") || strings.HasPrefix(line, "sbctl ")):
			commands = append(commands, comment.ReplaceAllString(line, ""))
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	return commands
}

// TestTheREADMEsCommandsWorkOnTheLocalCluster runs the README's commands as a user would after
// `make demo`: the real kubectl against the local cluster, sbctl and the kubectl plugin built
// from this checkout, on a bench named as the demo's.
func TestTheREADMEsCommandsWorkOnTheLocalCluster(t *testing.T) {
	requireStack(t)
	commands := readmeCommands(t)
	if len(commands) < 10 {
		t.Fatalf("found %d kubectl/sbctl lines in README.md; the parser or the README broke", len(commands))
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "sbctl"), "./cmd/sbctl")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build sbctl: %v\n%s", err, out)
	}
	if err := os.Symlink("sbctl", filepath.Join(bin, "kubectl-spiralbench")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))

	// The demo's bench, short: the README's lines run against a finished tcp-sweep in default.
	ctx := context.Background()
	// No spec.results: it uploads to the chart's default bucket, as the demo's bench does.
	w := sbtesting.MakeSpiralBench("tcp-sweep", "default").Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1)
	w.Spec.Run = sbv1.RunSpec{Seconds: 2, WarmupSeconds: ptr.To[int32](1), Repeats: 2, RetriesPerCell: ptr.To[int32](1)}
	sb := w.Obj()
	_ = k8s.Delete(ctx, &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "tcp-sweep", Namespace: "default"}})
	waitGone(t, "tcp-sweep")
	if err := k8s.Create(ctx, sb); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k8s.Delete(ctx, &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "tcp-sweep", Namespace: "default"}})
		_ = k8s.Delete(ctx, &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Name: "gpu-pool"}})
	})
	waitFor(t, "default", "tcp-sweep", 5*time.Minute, "finished", finished)

	used := map[string]bool{}
	for _, line := range commands {
		if reason := skipReasonFor(line, used); reason != "" {
			t.Logf("not here: %s (%s)", line, reason)
			continue
		}
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir = repoRoot
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		t.Logf("$ %s\n%s", line, out)
		if err != nil {
			t.Errorf("README line %q: %v\n%s", line, err, out)
		}
	}
	for pattern := range notOnTheLocalCluster {
		if !used[pattern] {
			t.Errorf("notOnTheLocalCluster[%q] matches no README line: remove it", pattern)
		}
	}
}

func skipReasonFor(line string, used map[string]bool) string {
	for pattern, reason := range notOnTheLocalCluster {
		if strings.Contains(line, pattern) {
			used[pattern] = true
			return reason
		}
	}
	return ""
}

func waitGone(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: name}, &sbv1.SpiralBench{})
		if client.IgnoreNotFound(err) == nil && err != nil {
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("SpiralBench default/%s still there after 2 minutes", name)
}
