package limits

import (
	"fmt"
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// The CRD's markers cannot read limits.json, so this holds them to it: a limit changed on one
// side only fails here (and the header is regenerated from the file by make generate).
func TestCRDAgreesWithDataplaneLimits(t *testing.T) {
	data, err := os.ReadFile("../../config/crd/bases/spiralbench.io_spiralbenches.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	d := Get()
	max := func(s apiextensionsv1.JSONSchemaProps) int64 {
		if s.Maximum == nil {
			return -1
		}
		return int64(*s.Maximum)
	}
	matrix := spec.Properties["matrix"]
	raw := spec.Properties["rawEthernet"]
	queue := matrix.Properties["queues"].Items.Schema
	for _, c := range []struct {
		what      string
		got, want int64
	}{
		{"matrix.batches[] maximum", max(*matrix.Properties["batches"].Items.Schema), d.RawBatchMax},
		{"matrix.queues[].tx maximum", max(queue.Properties["tx"]), d.RawQueuesMax},
		{"matrix.queues[].rx maximum", max(queue.Properties["rx"]), d.RawQueuesMax},
		{"rawEthernet.ringDescriptors maximum", max(raw.Properties["ringDescriptors"]), d.RawRingDescriptorsMax},
	} {
		if c.got != c.want {
			t.Errorf("%s is %d in the CRD, %d in limits.json", c.what, c.got, c.want)
		}
	}
	if min := *matrix.Properties["payloadBytes"].Items.Schema.Minimum; int64(min) < d.RawPayloadMinBytes {
		t.Errorf("matrix.payloadBytes[] minimum %v admits raw payloads below the data plane's %d", min, d.RawPayloadMinBytes)
	}
	wantRules := map[string]string{
		"spec":                        fmt.Sprintf("self.matrix.payloadBytes.all(p, p <= %d)", d.RawPayloadMaxBytes),
		"rawEthernet.ringDescriptors": fmt.Sprintf("self == 0 || self >= %d", d.RawRingDescriptorsMin),
	}
	for where, rules := range map[string]apiextensionsv1.ValidationRules{
		"spec": spec.XValidations, "rawEthernet.ringDescriptors": raw.Properties["ringDescriptors"].XValidations,
	} {
		found := false
		for _, r := range rules {
			found = found || strings.Contains(r.Rule, wantRules[where])
		}
		if !found {
			t.Errorf("no CEL rule of %s contains %q", where, wantRules[where])
		}
	}
	if !strings.Contains(raw.Properties["ringDescriptors"].Description, fmt.Sprintf("(%d)", d.RawRingDescriptorsDefault)) {
		t.Errorf("rawEthernet.ringDescriptors does not name the data plane's default ring (%d)", d.RawRingDescriptorsDefault)
	}
}

// The header the data plane compiles is what hack/gen-limits makes of limits.json today.
func TestGeneratedHeaderIsCurrent(t *testing.T) {
	data, err := os.ReadFile("../../dataplane/generated/spiral/limits.hpp")
	if err != nil {
		t.Fatal(err)
	}
	names, values := Fields()
	for _, n := range names {
		line := fmt.Sprintf("constexpr uint32_t k%s%s = %d;", strings.ToUpper(n[:1]), n[1:], values[n])
		if !strings.Contains(string(data), line) {
			t.Errorf("dataplane/generated/spiral/limits.hpp lacks %q: run make generate", line)
		}
	}
}
