package policy

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/plan"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// benchPods builds every rank's pod of the bench's first cell, as the controller would.
func benchPods(t *testing.T, sb *sbv1.SpiralBench, defaultImage string) []*corev1.Pod {
	t.Helper()
	cells, err := plan.Expand(&sb.Spec)
	if err != nil {
		t.Fatal(err)
	}
	in, err := cellpod.NewInput(sb, cells[0], 0, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	in.DefaultImage = defaultImage
	var pods []*corev1.Pod
	for _, r := range in.Ranks {
		pods = append(pods, cellpod.Build(in, r, ""))
	}
	return pods
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func TestImagesMatchRepositoriesPrefixesAndExactReferences(t *testing.T) {
	l, err := NewImages("ghcr.io/spiralbench/dataplane", "registry.example.com/bench/", "spiralbench/pinned:v1", "quay.io/x/y@sha256:"+strings.Repeat("a", 64))
	if err != nil {
		t.Fatal(err)
	}
	for image, want := range map[string]bool{
		"ghcr.io/spiralbench/dataplane:v0.1.0":                            true,
		"ghcr.io/spiralbench/dataplane":                                   true,
		"ghcr.io/spiralbench/dataplane@sha256:" + strings.Repeat("b", 64): true,
		"ghcr.io/spiralbench/dataplane-evil:v1":                           false, // a repository, not a string prefix
		"ghcr.io/spiralbench/dataplane/sub:v1":                            false,
		"registry.example.com/bench/dp:1":                                 true,
		"registry.example.com/bench/team/dp:1":                            true,
		"registry.example.com/benchmark/dp:1":                             false,
		"registry.example.com/bench":                                      false,
		"docker.io/spiralbench/pinned:v1":                                 true, // normalized as the runtime does
		"spiralbench/pinned:v2":                                           false,
		"spiralbench/pinned":                                              false, // :latest is another tag
		"quay.io/x/y@sha256:" + strings.Repeat("a", 64):                   true,
		"quay.io/x/y:latest":                                              false,
		"evil.example.com/spiralbench/dataplane:v0.1.0":                   false,
		"NOT a reference":                                                 false,
	} {
		if got := l.Allows(image); got != want {
			t.Errorf("Allows(%q) = %v, want %v", image, got, want)
		}
	}
	anyImage, _ := NewImages(AnyImage)
	if !anyImage.Allows("evil.example.com/x:1") {
		t.Error("* allows any image")
	}
	if (Images{}).Allows("ghcr.io/spiralbench/dataplane:v1") {
		t.Error("an empty list allows nothing by itself")
	}
}

func TestNewImagesRefusesWhatIsNoImage(t *testing.T) {
	for _, bad := range []string{"ghcr.io/UPPER/case", "ghcr.io/x:tag/", "https://ghcr.io/x"} {
		if _, err := NewImages(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCheckImagesAllowsTheOperatorsOwnRepositoryAndNamesTheSettingOtherwise(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("b", "team-a").Obj()
	if r := CheckImages(Images{}, "ghcr.io/spiralbench/dataplane:v0.1.0", benchPods(t, sb, "ghcr.io/spiralbench/dataplane:v0.1.0")); r != nil {
		t.Fatalf("the default image is always allowed: %+v", r)
	}
	sb.Spec.Image = "ghcr.io/spiralbench/dataplane:v0.2.0-rc1"
	if r := CheckImages(Images{}, "ghcr.io/spiralbench/dataplane:v0.1.0", benchPods(t, sb, "")); r != nil {
		t.Fatalf("another tag of the default repository is allowed: %+v", r)
	}
	sb.Spec.Image = "evil.example.com/miner:1"
	extra, _ := NewImages("registry.example.com/bench/")
	r := CheckImages(extra, "ghcr.io/spiralbench/dataplane:v0.1.0", benchPods(t, sb, ""))
	if r == nil || r.Reason != ReasonImageNotAllowed {
		t.Fatalf("refused, got %+v", r)
	}
	for _, want := range []string{`"evil.example.com/miner:1"`, "ghcr.io/spiralbench/dataplane, registry.example.com/bench/", "dataplane.allowedImages", "--allowed-images"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message lacks %q: %s", want, r.Message)
		}
	}
}

func TestPrivilegesNameTheFieldsOfTheSidesInUse(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("b", "ns").CrossNode("a", "b").Obj()
	if got := Privileges(&sb.Spec); len(got) != 0 {
		t.Fatalf("none asked: %v", got)
	}
	sb.Spec.Topology.Server.Privileged = true
	sb.Spec.Topology.Client.HostNetwork = true
	if got := strings.Join(Privileges(&sb.Spec), ","); got != "topology.server.privileged,topology.client.hostNetwork" {
		t.Errorf("got %s", got)
	}
	// GPUCopy runs one rank on the server side: the client side reaches no pod.
	gc := &sbv1.SpiralBenchSpec{Transport: sbv1.TransportGPUCopy, Topology: sbv1.TopologySpec{Server: sbv1.SideSpec{GPUs: 1}, Client: sbv1.SideSpec{Privileged: true}}}
	if ranks, _ := benchkind.Ranks(gc); len(ranks) != 1 {
		t.Fatalf("GPUCopy has one rank: %v", ranks)
	}
	if got := Privileges(gc); len(got) != 0 {
		t.Errorf("an unused side asks nothing: %v", got)
	}
}

func TestCheckPrivilegesByLabelOrList(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("b", "team-a").Obj()
	sb.Spec.Topology.Server.HostNetwork = true
	r := CheckPrivileges(namespace("team-a", nil), []string{"lab"}, &sb.Spec)
	if r == nil || r.Reason != ReasonPrivilegedNotAllowed {
		t.Fatalf("refused, got %+v", r)
	}
	for _, want := range []string{"topology.server.hostNetwork", "namespace team-a", "remove it", "spiralbench.io/privileged=true", "dataplane.privilegedNamespaces", "--privileged-namespaces"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message lacks %q: %s", want, r.Message)
		}
	}
	if r := CheckPrivileges(namespace("lab", nil), []string{"lab"}, &sb.Spec); r != nil {
		t.Errorf("listed namespace refused: %+v", r)
	}
	if r := CheckPrivileges(namespace("team-a", map[string]string{LabelPrivileged: "true"}), nil, &sb.Spec); r != nil {
		t.Errorf("labelled namespace refused: %+v", r)
	}
	if r := CheckPrivileges(namespace("team-a", map[string]string{LabelPrivileged: "yes"}), nil, &sb.Spec); r == nil {
		t.Error(`only "true" allows`)
	}
	sb.Spec.Topology.Server.HostNetwork = false
	if r := CheckPrivileges(namespace("team-a", nil), nil, &sb.Spec); r != nil {
		t.Errorf("a bench asking nothing runs anywhere: %+v", r)
	}
}

// The operator's pods add capabilities beyond the baseline level's list, so only a namespace
// enforcing privileged (or nothing) admits them; the check is the apiserver's own library.
func TestCheckPodSecurityJudgesTheBuiltPodsByTheNamespaceLevel(t *testing.T) {
	pods := benchPods(t, sbtesting.MakeSpiralBench("b", "team-a").Obj(), "spiralbench/dataplane:dev")
	for labels, refused := range map[*map[string]string]string{
		{}: "",
		{"pod-security.kubernetes.io/enforce": "privileged"}:                                                      "",
		{"pod-security.kubernetes.io/enforce": "baseline"}:                                                        `"baseline:latest"`,
		{"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.30"}: `"baseline:v1.30"`,
		{"pod-security.kubernetes.io/enforce": "restricted"}:                                                      `"restricted:latest"`,
		{"pod-security.kubernetes.io/enforce": "nonsense"}:                                                        `"restricted:latest"`, // as the apiserver reads it
		{"pod-security.kubernetes.io/warn": "restricted"}:                                                         "",
	} {
		r := CheckPodSecurity(namespace("team-a", *labels), pods)
		if refused == "" {
			if r != nil {
				t.Errorf("%v refused: %s", *labels, r.Message)
			}
			continue
		}
		if r == nil || r.Reason != ReasonPodSecurity {
			t.Errorf("%v: want a refusal, got %+v", *labels, r)
			continue
		}
		for _, want := range []string{refused, "namespace team-a", "capabilities", "NET_ADMIN", "b-c0-a0-server", "pod-security.kubernetes.io/enforce=privileged"} {
			if !strings.Contains(r.Message, want) {
				t.Errorf("%v: message lacks %q: %s", *labels, want, r.Message)
			}
		}
	}
}
