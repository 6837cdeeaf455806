// Package integration tests the CRD and the controller against a real kube-apiserver and
// etcd (envtest). `make test-go` builds the binaries with hack/k8s-assets.sh and sets
// KUBEBUILDER_ASSETS; without it every test here skips and says why.
package integration

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	uberzap "go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchctrl"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/controllers/fleetctrl"
	"github.com/spiralbench/spiralbench/controllers/managercache"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/metrics"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/rendezvous"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

var (
	managerLog       lockedBuffer
	echo403, echo500 *sbtesting.EchoingS3
	allowedEndpoints []string
	cfg              *rest.Config
	k8sClient        client.Client
	skipReason       string
	repoRoot         = filepath.Join("..", "..")
	// managerKey is the install's provenance key: every manager of it reads the same Secret.
	managerKey = provenance.RandomKey()
	// rendezvousServer is the manager's rendezvous, on a loopback port.
	rendezvousServer *rendezvous.Server
)

func TestMain(m *testing.M) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		skipReason = "KUBEBUILDER_ASSETS is not set: run `make test-go`, which builds kube-apiserver and etcd with hack/k8s-assets.sh"
		os.Exit(m.Run())
	}
	// Errors only on stderr: the reconciler's info logs would drown the test output. Every
	// level goes to managerLog too, where tests look for leaked credentials.
	logAll := zapcore.NewCore(zapcore.NewJSONEncoder(uberzap.NewProductionEncoderConfig()), zapcore.AddSync(&managerLog), zapcore.DebugLevel)
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel),
		zap.RawZapOpts(uberzap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, logAll) }))))
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(repoRoot, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	var err error
	if cfg, err = env.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "cannot start envtest:", err)
		os.Exit(1)
	}
	// Servers answering like a broken or hostile S3 endpoint (sbtesting.EchoingS3), on the
	// manager's endpoint allow-list with the unreachable endpoint of the execution tests and the
	// fleet history test's S3 server (its benches upload there, and the results preflight holds
	// a bench whose endpoint is off the list before its first cell).
	echo403, echo500 = sbtesting.NewEchoingS3(http.StatusForbidden, leakSecret), sbtesting.NewEchoingS3(http.StatusInternalServerError, leakSecret)
	allowedEndpoints = []string{"http://127.0.0.1:1", echo403.URL, echo500.URL, "http://127.0.0.1:7091"}
	code := run(m)
	echo403.Close()
	echo500.Close()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "cannot stop envtest:", err)
	}
	os.Exit(code)
}

// run starts the manager with the real reconciler beside the tests and stops it afterwards.
func run(m *testing.M) int {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sbv1.AddToScheme(scheme))
	var err error
	if k8sClient, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, "cannot create a client:", err)
		return 1
	}
	// The manager serves its metrics as in production, on a free port the dashboard test scrapes.
	if metricsAddr, err = freeAddr(); err != nil {
		fmt.Fprintln(os.Stderr, "cannot pick a metrics port:", err)
		return 1
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: metricsAddr},
		Cache: managercache.Options()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot create the manager:", err)
		return 1
	}
	// The rendezvous, as the chart runs it by default: cell pods on the pod network start together.
	rendezvousAddr, err := freeAddr()
	if err == nil {
		rendezvousServer = rendezvous.New(rendezvousAddr, rendezvousAddr)
		err = mgr.Add(rendezvousServer)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot start the rendezvous:", err)
		return 1
	}
	if err := (&benchctrl.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder("spiralbench-controller"),
		DefaultImage: "spiralbench/dataplane:test", LeaseNamespace: "default", Uploader: bucket.MinIO{}, Provenance: managerKey,
		DeadlineSlack: time.Second, AllowedEndpoints: allowedEndpoints, Rendezvous: rendezvousServer,
	}).SetupWithManager(mgr); err != nil {
		fmt.Fprintln(os.Stderr, "cannot set up the controller:", err)
		return 1
	}
	if err := metrics.RegisterBenchCollector(mgr.GetCache(), mgr.GetClient(), benchstate.CachedAttacher(mgr.GetClient(), managerKey)); err != nil {
		fmt.Fprintln(os.Stderr, "cannot register the bench collector:", err)
		return 1
	}
	if err := (&fleetctrl.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder("spiralbenchfleet-controller"),
		Store: bucket.MinIO{}, NodeWrites: true, DefaultImage: "spiralbench/dataplane:test", Provenance: managerKey,
	}).SetupWithManager(mgr); err != nil {
		fmt.Fprintln(os.Stderr, "cannot set up the fleet controller:", err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager stopped:", err)
		}
	}()
	code := m.Run()
	cancel()
	<-done
	return code
}

// requireEnv skips a test that needs the apiserver when it is not there.
func requireEnv(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}

// newNamespace gives each test its own namespace.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "sb-test-"}}
	if err := k8sClient.Create(context.Background(), ns); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	return ns.Name
}

// eventually polls cond until it holds or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		ok, detail := cond()
		if ok {
			return
		}
		last = detail
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s; last: %s", timeout, what, last)
}

// lockedBuffer collects the manager's log lines; the manager writes from many goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
