package v1alpha1

import (
	"os"
	"strings"
	"testing"

	"github.com/distribution/reference"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// The format rules (label keys, image references, object names) are regular expressions in
// CEL; these tests run the generated CRD's rules with cel-go, as the apiserver does, against the
// Go validators they stand in for, so a pattern that drifts from them fails here.

// formatRules compiles every rule of the CRD file whose message starts with prefix.
func formatRules(t *testing.T, file, prefix string) []cel.Program {
	t.Helper()
	data, err := os.ReadFile("../../config/crd/bases/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	env, err := cel.NewEnv(cel.Variable("self", cel.DynType), ext.Strings(ext.StringsVersion(2)))
	if err != nil {
		t.Fatal(err)
	}
	var out []cel.Program
	var walk func(s *apiextensionsv1.JSONSchemaProps)
	walk = func(s *apiextensionsv1.JSONSchemaProps) {
		for _, r := range s.XValidations {
			if !strings.HasPrefix(r.Message, prefix) {
				continue
			}
			ast, iss := env.Compile(r.Rule)
			if iss.Err() != nil {
				t.Fatalf("%s: %v", r.Rule, iss.Err())
			}
			prg, err := env.Program(ast)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, prg)
		}
		for k := range s.Properties {
			p := s.Properties[k]
			walk(&p)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(s.Items.Schema)
		}
	}
	walk(crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	if len(out) == 0 {
		t.Fatalf("%s has no rule with the message %q (run make manifests)", file, prefix)
	}
	return out
}

// admits: every rule holds for self.
func admits(t *testing.T, prgs []cel.Program, self any) bool {
	t.Helper()
	for _, p := range prgs {
		v, _, err := p.Eval(map[string]any{"self": self})
		if err != nil {
			t.Fatalf("%v: %v", self, err)
		}
		if v.Value() != true {
			return false
		}
	}
	return true
}

var labelKeys = []string{
	"a", "rack", "Rack_1.x", "topology.kubernetes.io/rack", "nvidia.com/gpu.clique", "example.com/" + strings.Repeat("n", 63),
	strings.Repeat("d", 253) + "/x", "", "/x", "a/", "a/b/c", "-a", "a-", "Example.com/x", "ex_ample.com/x", "a b",
	"example.com/" + strings.Repeat("n", 64), strings.Repeat("d", 254) + "/x", strings.Repeat("n", 64), "example..com/x", "x/y.",
}

func TestLabelKeyRulesAgreeWithKubernetes(t *testing.T) {
	const fleets = "spiralbench.io_spiralbenchfleets.yaml"
	domain := formatRules(t, fleets, "pairingDomain.label is a node label key")
	templates := formatRules(t, fleets, "labels keys must be Kubernetes label keys")
	for _, k := range labelKeys {
		want := len(validation.IsQualifiedName(k)) == 0
		if got := admits(t, domain, k); got != want && k != "" { // "" is refused by minLength
			t.Errorf("pairingDomain.label %q: admitted %v, Kubernetes says valid %v", k, got, want)
		}
		if got := admits(t, templates, map[string]any{k: "v"}); got != want {
			t.Errorf("template label key %q: admitted %v, Kubernetes says valid %v", k, got, want)
		}
	}
	reserved := formatRules(t, fleets, "spiralbench.io/ labels are the operator's own")
	for k, want := range map[string]bool{"spiralbench.io/fleet": false, "spiralbench.io/anything": false, "team.example.com/owner": true, "spiralbench.io": true} {
		if got := admits(t, reserved, map[string]any{k: "v"}); got != want {
			t.Errorf("template label %q: admitted %v, want %v", k, got, want)
		}
	}
}

func TestCatalogConfigMapRuleIsADNSSubdomain(t *testing.T) {
	rules := formatRules(t, "spiralbench.io_spiralbenchfleets.yaml", "references.catalogConfigMap is a ConfigMap name")
	for _, n := range []string{"catalog", "site-catalog.v2", "a", "Catalog", "-catalog", "catalog-", "cat_alog", "cat alog", "a..b", "catalog.yaml/x"} {
		want := len(validation.IsDNS1123Subdomain(n)) == 0
		if got := admits(t, rules, n); got != want {
			t.Errorf("catalogConfigMap %q: admitted %v, Kubernetes says valid %v", n, got, want)
		}
	}
}

// The check image rule accepts what distribution/reference parses (the kubelet's grammar),
// except digests of other algorithms than sha256, which it refuses on purpose.
func TestCheckImageRuleAgreesWithDistributionReference(t *testing.T) {
	rules := formatRules(t, "spiralbench.io_spiralbenchfleets.yaml", "check.image is not an image reference")
	digest := "@sha256:" + strings.Repeat("ab", 32)
	for _, img := range []string{
		"dcgm", "nvcr.io/nvidia/cloud-native/dcgm:3.3.5-1-ubuntu22.04", "registry.example.com/site/node-check:1.0",
		"localhost:5000/check", "Registry.Example.com/x/y", "a/b_c/d__e/f-g---h:TAG_1.2-x", "check" + digest,
		"registry.example.com:443/check:1" + digest, "not an image!", "", "Upper/case", "x:", "x:-tag", ":tag", "x//y",
		"x/", "x@sha256:abc", "x:" + strings.Repeat("t", 129), "x_y", "x__y", "x._y", "https://registry.example.com/x",
	} {
		_, err := reference.Parse(img)
		want := err == nil && img != ""
		if got := admits(t, rules, img); got != want {
			t.Errorf("check.image %q: admitted %v, distribution/reference parses it %v", img, got, want)
		}
	}
	if admits(t, rules, "x@sha512:"+strings.Repeat("ab", 64)) {
		t.Error("a sha512 digest is admitted; the rule and its message say sha256")
	}
}
