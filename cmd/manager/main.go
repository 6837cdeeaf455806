// Command manager runs the SpiralBench operator.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchctrl"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/controllers/fleetctrl"
	"github.com/spiralbench/spiralbench/controllers/managercache"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/metrics"
	"github.com/spiralbench/spiralbench/pkg/policy"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/rendezvous"
)

func main() {
	var metricsAddr, probeAddr, pprofAddr, dataplaneImage, leaseNamespace, benchEvents string
	var leaderElect, fleetNodeWrites bool
	var benchWorkers int
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "address the Prometheus metrics endpoint binds to; 0 disables it")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address the health and readiness probes bind to")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "0", "address Go's pprof endpoints (/debug/pprof/) bind to, for profiling the manager; 0 disables them")
	flag.BoolVar(&leaderElect, "leader-elect", false, "elect a leader so that only one manager replica reconciles")
	var pullPolicy string
	var defaults benchstate.BucketDefaults
	flag.StringVar(&dataplaneImage, "dataplane-image", envOr("SPIRALBENCH_DATAPLANE_IMAGE", "spiralbench/dataplane:dev"), "image of cell pods for benches that name none ($SPIRALBENCH_DATAPLANE_IMAGE)")
	flag.StringVar(&pullPolicy, "dataplane-pull-policy", envOr("SPIRALBENCH_DATAPLANE_PULL_POLICY", "IfNotPresent"), "pull policy of cell pods: Always, IfNotPresent or Never ($SPIRALBENCH_DATAPLANE_PULL_POLICY)")
	flag.StringVar(&leaseNamespace, "lease-namespace", envOr("POD_NAMESPACE", "spiralbench-system"), "namespace of the per-node Leases that keep benches apart, and of the default bucket's Secret ($POD_NAMESPACE)")
	flag.StringVar(&defaults.Endpoint, "bucket-endpoint", os.Getenv("SPIRALBENCH_BUCKET_ENDPOINT"), "default results bucket endpoint for benches without spec.results ($SPIRALBENCH_BUCKET_ENDPOINT)")
	flag.StringVar(&defaults.Bucket, "bucket", os.Getenv("SPIRALBENCH_BUCKET"), "default results bucket; empty: none ($SPIRALBENCH_BUCKET)")
	flag.StringVar(&defaults.Region, "bucket-region", envOr("SPIRALBENCH_BUCKET_REGION", "us-east-1"), "default results bucket region ($SPIRALBENCH_BUCKET_REGION)")
	flag.StringVar(&defaults.CredentialsSecret, "bucket-credentials-secret", os.Getenv("SPIRALBENCH_BUCKET_CREDENTIALS_SECRET"), "Secret in the manager's namespace with accessKeyID and secretAccessKey for the default bucket ($SPIRALBENCH_BUCKET_CREDENTIALS_SECRET)")
	var allowedEndpoints string
	flag.StringVar(&allowedEndpoints, "allowed-results-endpoints", os.Getenv("SPIRALBENCH_ALLOWED_RESULTS_ENDPOINTS"), "comma-separated scheme://host[:port] that spec.results.endpoint may name; empty allows any ($SPIRALBENCH_ALLOWED_RESULTS_ENDPOINTS)")
	var allowedImages, allowedPriorityClasses, privilegedNamespaces string
	flag.StringVar(&allowedImages, "allowed-images", os.Getenv("SPIRALBENCH_ALLOWED_IMAGES"), "comma-separated images cell pods may run besides --dataplane-image's repository: a repository (any tag), a reference with tag or digest (that one), a prefix ending in / (every repository below it), or *; empty allows the default image's repository only ($SPIRALBENCH_ALLOWED_IMAGES)")
	flag.StringVar(&allowedPriorityClasses, "allowed-priority-classes", os.Getenv("SPIRALBENCH_ALLOWED_PRIORITY_CLASSES"), "comma-separated priority classes spec.priorityClassName may name, or *; empty allows any class not named system-* ($SPIRALBENCH_ALLOWED_PRIORITY_CLASSES)")
	flag.StringVar(&privilegedNamespaces, "privileged-namespaces", os.Getenv("SPIRALBENCH_PRIVILEGED_NAMESPACES"), "comma-separated namespaces whose benches may run privileged or host-network pods, besides namespaces labelled spiralbench.io/privileged=true ($SPIRALBENCH_PRIVILEGED_NAMESPACES)")
	var rendezvousBind string
	flag.StringVar(&rendezvousBind, "rendezvous-bind-address", envOr("SPIRALBENCH_RENDEZVOUS_BIND_ADDRESS", "0"), "address the rendezvous binds to, where rank 0 of a cell on the pod network announces its address so the other ranks start beside it (chart: rendezvous.enabled); cell pods reach it at $POD_IP and this port; 0 disables it: the other ranks then start once the kubelet reports rank 0's IP ($SPIRALBENCH_RENDEZVOUS_BIND_ADDRESS)")
	var referenceCatalog string
	flag.StringVar(&referenceCatalog, "reference-catalog", os.Getenv("SPIRALBENCH_REFERENCE_CATALOG"), "file of the reference catalog fleets judge nodes against (chart: the ConfigMap spiralbench-reference-catalog); empty uses the one compiled in ($SPIRALBENCH_REFERENCE_CATALOG)")
	flag.IntVar(&benchWorkers, "bench-workers", 1, "benches reconciled at once; a fleet of hundreds of parallel benches needs several, since each reconcile waits on the apiserver")
	flag.StringVar(&benchEvents, "bench-events", envOr("SPIRALBENCH_BENCH_EVENTS", benchctrl.BenchEventsAll), "events the bench controller writes: all, or warnings (only failures and refusals; for pools of thousands of nodes, docs/fleet.md) ($SPIRALBENCH_BENCH_EVENTS)")
	flag.BoolVar(&fleetNodeWrites, "fleet-node-writes", os.Getenv("SPIRALBENCH_FLEET_NODE_WRITES") == "true", "let SpiralBenchFleets write verdict labels and taints and run the upgrade gate; needs node patch rights (chart: fleet.nodeWrites) ($SPIRALBENCH_FLEET_NODE_WRITES)")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	var allowed []string
	for _, e := range strings.Split(allowedEndpoints, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if !bucket.EndpointAllowed(e, []string{e}) {
			fmt.Fprintf(os.Stderr, "--allowed-results-endpoints: %q is not an http(s)://host[:port] URL\n", e)
			os.Exit(2)
		}
		allowed = append(allowed, e)
	}
	images, err := policy.NewImages(strings.Split(allowedImages, ",")...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "--allowed-images: %v\n", err)
		os.Exit(2)
	}
	priorityClasses, err := policy.NewPriorityClasses(strings.Split(allowedPriorityClasses, ",")...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "--allowed-priority-classes: %v\n", err)
		os.Exit(2)
	}
	if policy.Repository(dataplaneImage) == "" {
		fmt.Fprintf(os.Stderr, "--dataplane-image %q is not an image reference\n", dataplaneImage)
		os.Exit(2)
	}
	var privileged []string
	for _, ns := range strings.Split(privilegedNamespaces, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			privileged = append(privileged, ns)
		}
	}
	switch corev1.PullPolicy(pullPolicy) {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		fmt.Fprintf(os.Stderr, "--dataplane-pull-policy %q: use Always, IfNotPresent or Never\n", pullPolicy)
		os.Exit(2)
	}
	if (defaults.Bucket == "") != (defaults.Endpoint == "") || (defaults.Bucket != "" && defaults.CredentialsSecret == "") {
		fmt.Fprintln(os.Stderr, "a default bucket needs --bucket, --bucket-endpoint and --bucket-credentials-secret together")
		os.Exit(2)
	}
	defaults.Namespace = leaseNamespace
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")
	// The Go runtime's soft memory limit at 90 % of the container's (cgroup) memory limit,
	// unless GOMEMLIMIT is set: without it the heap grows to twice what is live before a
	// collection, and the cache of a large fleet's round would pass the container's limit
	// long before what it holds does (docs/benchmarks/fleet.md).
	if limit, err := memlimit.SetGoMemLimitWithOpts(memlimit.WithRatio(0.9), memlimit.WithProvider(memlimit.FromCgroup)); err == nil && limit > 0 {
		log.Info("Go memory limit from the container's", "bytes", limit)
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sbv1.AddToScheme(scheme))

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme: scheme,
		// What the cache keeps of each kind: controllers/managercache.
		Cache:                  managercache.Options(),
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: probeAddr,
		PprofBindAddress:       pprofAddr,
		LeaderElection:         leaderElect,
		LeaderElectionID:       "spiralbench-manager.spiralbench.io",
		// A restarted manager takes over at once instead of waiting out the old lease: the
		// reconciler keeps no state, so a quick hand-over is safe.
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		log.Error(err, "cannot create the manager")
		os.Exit(1)
	}
	catalog, err := loadCatalog(referenceCatalog)
	if err != nil {
		log.Error(err, "cannot read the reference catalog", "path", referenceCatalog)
		os.Exit(1)
	}
	// The key that marks what the manager creates and signs what it uploads, read past the
	// cache before any reconcile needs it. Its Secret and the ConfigMap publishing its public
	// key live in the manager's namespace (config/rbac/leader_election_role.yaml grants them
	// there only).
	ctx := ctrl.SetupSignalHandler()
	key, err := loadProvenance(ctx, scheme, leaseNamespace)
	if err != nil {
		log.Error(err, "cannot load the provenance key")
		os.Exit(1)
	}
	benchRecorder, err := benchctrl.BenchEventRecorder(mgr.GetEventRecorder("spiralbench-controller"), benchEvents)
	if err != nil {
		log.Error(err, "bad flag")
		os.Exit(1)
	}
	rdv, err := newRendezvous(rendezvousBind, os.Getenv("POD_IP"))
	if err == nil && rdv != nil {
		err = mgr.Add(rdv)
	}
	if err != nil {
		log.Error(err, "cannot set up the rendezvous")
		os.Exit(1)
	}
	if err := (&benchctrl.Reconciler{
		Client:         mgr.GetClient(),
		APIReader:      mgr.GetAPIReader(),
		Recorder:       benchRecorder,
		DefaultImage:   dataplaneImage,
		PullPolicy:     corev1.PullPolicy(pullPolicy),
		LeaseNamespace: leaseNamespace,
		Uploader:       bucket.MinIO{},
		DefaultBucket:  defaults,
		Provenance:     key,
		// The endpoints benches may send signed requests to (Helm value results.allowedEndpoints).
		AllowedEndpoints: allowed,
		// The admin's policy for cell pods (Helm values dataplane.allowedImages,
		// dataplane.allowedPriorityClasses and dataplane.privilegedNamespaces; docs/security.md).
		AllowedImages:          images,
		AllowedPriorityClasses: priorityClasses,
		PrivilegedNamespaces:   privileged,
		Workers:                benchWorkers,
		Rendezvous:             rdv,
	}).SetupWithManager(mgr); err != nil {
		log.Error(err, "cannot set up the SpiralBench controller")
		os.Exit(1)
	}
	utilruntime.Must(metrics.RegisterBenchCollector(mgr.GetCache(), mgr.GetClient(), benchstate.CachedAttacher(mgr.GetClient(), key)))
	if err := (&fleetctrl.Reconciler{
		Client:        mgr.GetClient(),
		APIReader:     mgr.GetAPIReader(),
		Recorder:      mgr.GetEventRecorder("spiralbenchfleet-controller"),
		Store:         bucket.MinIO{},
		Provenance:    key,
		DefaultBucket: defaults, AllowedEndpoints: allowed,
		NodeWrites: fleetNodeWrites,
		Catalog:    catalog,
		// External check steps meet the same image allow-list as cell pods.
		DefaultImage: dataplaneImage, AllowedImages: images,
	}).SetupWithManager(mgr); err != nil {
		log.Error(err, "cannot set up the SpiralBenchFleet controller")
		os.Exit(1)
	}
	utilruntime.Must(mgr.AddHealthzCheck("healthz", healthz.Ping))
	utilruntime.Must(mgr.AddReadyzCheck("readyz", healthz.Ping))
	log.Info("starting the manager")
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "the manager stopped")
		os.Exit(1)
	}
}

// newRendezvous: nil when bind is 0 (off); cell pods reach it at the manager pod's IP.
func newRendezvous(bind, podIP string) (*rendezvous.Server, error) {
	if bind == "0" || bind == "" {
		return nil, nil
	}
	_, port, err := net.SplitHostPort(bind)
	if err != nil {
		return nil, fmt.Errorf("--rendezvous-bind-address %q: %w", bind, err)
	}
	if net.ParseIP(podIP).To4() == nil {
		return nil, fmt.Errorf("--rendezvous-bind-address %s needs the manager pod's IPv4 address in $POD_IP (the chart sets it), got %q", bind, podIP)
	}
	return rendezvous.New(bind, net.JoinHostPort(podIP, port)), nil
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// loadProvenance reads (or on the first start creates) the provenance key in ns, through a
// client of its own: the manager's cache is not started yet.
func loadProvenance(ctx context.Context, scheme *runtime.Scheme, ns string) (*provenance.Key, error) {
	c, err := client.New(ctrl.GetConfigOrDie(), client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return provenance.LoadOrCreate(ctx, c, ns)
}

// loadCatalog reads the reference catalog file; an empty path is the compiled-in catalog.
func loadCatalog(path string) (*fleet.Catalog, error) {
	if path == "" {
		return fleet.BuiltinCatalog(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return fleet.ParseCatalog(data)
}
