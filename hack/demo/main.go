// Command demo starts a real kube-apiserver and etcd (the envtest binaries from
// hack/k8s-assets.sh), installs the CRD, runs the SpiralBench controller, applies every
// manifest in config/samples and prints what `kubectl get sb` and the plans show.
//
//	KUBEBUILDER_ASSETS=$(hack/k8s-assets.sh | tail -n1) go run ./hack/demo
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run() error {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	env := &envtest.Environment{CRDDirectoryPaths: []string{"config/crd/bases"}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("start kube-apiserver and etcd: %w", err)
	}
	defer func() { _ = env.Stop() }()
	fmt.Println("kube-apiserver and etcd are up; the SpiralBench CRD is installed")

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sbv1.AddToScheme(scheme))
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		return err
	}
	if err := (&controllers.SpiralBenchReconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder("spiralbench-controller"),
		DefaultImage: "spiralbench/dataplane:dev", LeaseNamespace: "default", Uploader: bucket.MinIO{},
	}).SetupWithManager(mgr); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = mgr.Start(ctx) }()

	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	paths, _ := filepath.Glob("config/samples/*.yaml")
	var names []string
	for _, p := range paths {
		if filepath.Base(p) == "kustomization.yaml" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		u.SetNamespace("default")
		if err := c.Create(ctx, u); err != nil {
			return fmt.Errorf("apply %s: %w", p, err)
		}
		names = append(names, u.GetName())
		fmt.Println("applied", p)
	}
	bad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "spiralbench.io/v1alpha1", "kind": "SpiralBench",
		"metadata": map[string]any{"name": "bad-udp", "namespace": "default"},
		"spec":     map[string]any{"transport": "UDP", "matrix": map[string]any{"payloadBytes": []any{9000}}},
	}}
	if err := c.Create(ctx, bad); err != nil {
		fmt.Printf("\nan invalid manifest (UDP 9000 B at MTU 9000) is refused:\n  %v\n", err)
	}

	benches, err := waitAccepted(ctx, c, names)
	if err != nil {
		return err
	}
	fmt.Println("\n$ kubectl get sb")
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tPHASE\tCELLS\tACCEPTED")
	for _, sb := range benches {
		acc := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionAccepted)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sb.Name, sb.Spec.Transport, sb.Status.Phase, sb.Status.Progress, acc.Message)
	}
	_ = tw.Flush()

	for _, sb := range benches {
		if sb.Name != "tcp-sweep" {
			continue
		}
		cells, _ := plan.Expand(&sb.Spec)
		fmt.Println("\nplan of tcp-sweep (DAQIRI's TCP table):")
		for _, cell := range cells {
			mark := ""
			if cell.Headline {
				mark = "  <- headline"
			}
			fmt.Printf("  cell %d: %7d B x %d pairs%s\n", cell.Index, cell.PayloadBytes, cell.Pairs, mark)
		}
	}
	fmt.Println("\nCell execution (pods, data plane, results) arrives with the execution engine; see docs/architecture.md.")
	return nil
}

func waitAccepted(ctx context.Context, c client.Client, names []string) ([]sbv1.SpiralBench, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var list sbv1.SpiralBenchList
		if err := c.List(ctx, &list, client.InNamespace("default")); err != nil {
			return nil, err
		}
		accepted := 0
		for _, sb := range list.Items {
			if meta.IsStatusConditionPresentAndEqual(sb.Status.Conditions, sbv1.ConditionAccepted, metav1.ConditionTrue) {
				accepted++
			}
		}
		if accepted == len(names) {
			sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
			return list.Items, nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil, fmt.Errorf("not every sample was accepted within 30 s (%s)", strings.Join(names, ", "))
}
