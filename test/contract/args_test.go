package contract

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/plan"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// applyDefaults fills an object's unset fields with the schema's defaults, as the kube-apiserver
// does on admission (structural defaulting: objects and list items, depth first).
func applyDefaults(v any, s *apiextensionsv1.JSONSchemaProps) {
	switch v := v.(type) {
	case map[string]any:
		for name, prop := range s.Properties {
			if _, ok := v[name]; !ok && prop.Default != nil {
				var d any
				if err := json.Unmarshal(prop.Default.Raw, &d); err == nil {
					v[name] = d
				}
			}
			if child, ok := v[name]; ok {
				applyDefaults(child, &prop)
			}
		}
	case []any:
		if s.Items != nil && s.Items.Schema != nil {
			for _, item := range v {
				applyDefaults(item, s.Items.Schema)
			}
		}
	}
}

// samples reads config/samples/*.yaml with the CRD's defaults applied.
func samples(t *testing.T) map[string]*sbv1.SpiralBench {
	t.Helper()
	schema := crd(t).Spec.Versions[0].Schema.OpenAPIV3Schema
	files, err := filepath.Glob("../../config/samples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*sbv1.SpiralBench{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(data, &obj); err != nil {
			t.Fatal(err)
		}
		if obj["kind"] != "SpiralBench" {
			continue
		}
		applyDefaults(obj, schema)
		var sb sbv1.SpiralBench
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &sb); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".yaml")] = &sb
	}
	if len(out) < 15 {
		t.Fatalf("read only %d samples", len(out))
	}
	return out
}

// distinct drops lists rendered twice (the same cell under two presets), keeping the first.
func distinct(jobs []argsJob) []argsJob {
	seen := map[string]bool{}
	var out []argsJob
	for _, j := range jobs {
		key := strings.Join(j.args, "\x00")
		if !seen[key] {
			seen[key] = true
			out = append(out, j)
		}
	}
	return out
}

// checkAll runs checkArgs on every job, as many processes at once as there are cores.
func checkAll(t *testing.T, binary string, jobs []argsJob) []error {
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < goruntime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = checkArgs(t, binary, jobs[i].args)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

// argsJob is one rendered argument list and where it came from.
type argsJob struct {
	label string
	args  []string
}

// Every argument list the operator renders parses with the data plane's own command line and
// cell parser (spiral-dataplane --check-args): every sample, under each preset admission lets
// it use, every cell (up to 64 a plan) and every rank, repeats as the controller groups them.
func TestEveryRenderedArgumentListParses(t *testing.T) {
	binary := dataplaneBinary(t)
	cuda := describe(t).CUDA
	needCUDA := 0
	presets := []sbv1.Preset{sbv1.PresetSmoke, sbv1.PresetSweep, sbv1.PresetQueueScaling, sbv1.PresetDropCurve,
		sbv1.PresetForwardPacketSize, sbv1.PresetForwardBurst, sbv1.PresetNoDropRate}
	kinds := map[sbv1.Transport]bool{}
	lists := 0
	var jobs []argsJob
	for name, sample := range samples(t) {
		for _, p := range presets {
			if !sbtesting.PresetAdmitted(&sample.Spec, p) {
				continue
			}
			sb := sample.DeepCopy()
			sb.Spec.Matrix.Preset = p
			cells, err := plan.Expand(&sb.Spec)
			if err != nil {
				t.Fatalf("%s %s: %v", name, p, err)
			}
			kind, _ := benchkind.For(&sb.Spec)
			repeats := min(max(sb.Spec.Run.Repeats, 1), max(kind.RepeatsPerAttempt, 1))
			for _, c := range cells[:min(len(cells), 64)] {
				in, err := cellpod.NewInput(sb, c, 0, repeats, 0, []string{"node-a", "node-b"})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range in.Ranks {
					rendezvous := ""
					if r.Index > 0 {
						rendezvous = "10.0.0.1"
					}
					jobs = append(jobs, argsJob{label: fmt.Sprintf("%s, preset %s, cell %d, %s", name, p, c.Index, r.Name),
						args: cellpod.Args(in, r, rendezvous)})
				}
			}
			kinds[sb.Spec.Transport] = true
		}
	}
	jobs = distinct(jobs)
	errs := checkAll(t, binary, jobs)
	// Lists the CPU build refuses for want of CUDA go to the CUDA build when make names it
	// (SPIRAL_DATAPLANE_CUDA): only those pay its half-second start.
	var gpuJobs []argsJob
	for i, err := range errs {
		if err != nil && !cuda && strings.Contains(err.Error(), "built without CUDA") {
			gpuJobs = append(gpuJobs, jobs[i])
			continue
		}
		if err != nil {
			t.Errorf("%s: spiral-dataplane refuses the rendered flags: %v\n  args: %s", jobs[i].label, err, strings.Join(jobs[i].args, " "))
		}
		lists++
	}
	if cudaBinary := os.Getenv("SPIRAL_DATAPLANE_CUDA"); cudaBinary != "" && len(gpuJobs) > 0 {
		for i, err := range checkAll(t, cudaBinary, gpuJobs) {
			if err != nil {
				t.Errorf("%s: the CUDA build refuses the rendered flags: %v\n  args: %s", gpuJobs[i].label, err, strings.Join(gpuJobs[i].args, " "))
			}
			lists++
		}
		needCUDA = 0
	} else {
		needCUDA = len(gpuJobs)
	}
	for _, tr := range benchkind.Transports() {
		if !kinds[tr] {
			t.Errorf("no sample renders %s: add one to config/samples", tr)
		}
	}
	t.Logf("%d argument lists parsed (%d by the CUDA build); %d need the CUDA build and none was named (SPIRAL_DATAPLANE_CUDA)",
		lists, len(gpuJobs)-needCUDA, needCUDA)
}
