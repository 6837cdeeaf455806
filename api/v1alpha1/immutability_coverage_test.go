package v1alpha1

import (
	"os"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// What may change on a started bench: these cannot change a number (suspend stops new cells,
// results say where files go, the TTL when the object goes). Placement is locked later, at the
// first cell, and acceptance (the verdict's rules) at the start, each by a rule of its own.
var (
	mutableOnceStarted = []string{"suspend", "results", "ttlSecondsAfterFinished"}
	lockedAtFirstCell  = []string{"topology.placement", "topology.server.placement", "topology.client.placement"}
	lockedWithVerdict  = []string{"acceptance"}
)

// Every field of the spec, walked by reflection through the structs the immutability rule
// compares field by field (topology and its sides; every other field is compared whole), is
// either compared by the rule in the generated CRD or on one of the two lists above. A field
// added to the spec without either fails here, before a running bench could be edited under it.
func TestEverySpecFieldIsLockedOnceStarted(t *testing.T) {
	measured, placement, acceptance := rootRules(t)
	var fields []string
	walk(reflect.TypeOf(SpiralBenchSpec{}), "", &fields)
	if len(fields) < 30 {
		t.Fatalf("walked only %d fields: %v", len(fields), fields)
	}
	for _, f := range fields {
		switch {
		case contains(mutableOnceStarted, f):
			if strings.Contains(measured, "self.spec."+f) {
				t.Errorf("%s is on the mutable list but the immutability rule compares it", f)
			}
		case contains(lockedAtFirstCell, f):
			if !compares(placement, f) {
				t.Errorf("%s: the placement rule does not compare it", f)
			}
		case contains(lockedWithVerdict, f):
			if !compares(acceptance, f) || strings.Contains(measured, "self.spec."+f) {
				t.Errorf("%s: the acceptance rule, and only it, must compare it", f)
			}
		default:
			if !compares(measured, f) {
				t.Errorf("%s shapes a measurement but the immutability rule does not compare it: add it to the rule (and its message) or, if it cannot change a number, to mutableOnceStarted", f)
			}
		}
	}
	for _, f := range append(append(append([]string{}, mutableOnceStarted...), lockedAtFirstCell...), lockedWithVerdict...) {
		if !contains(fields, f) {
			t.Errorf("%s is listed but is no field of the spec", f)
		}
	}
}

// walk lists the json paths of t's fields, descending into the structs whose fields the rule
// compares one by one.
func walk(t reflect.Type, prefix string, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		switch f.Type {
		case reflect.TypeOf(TopologySpec{}), reflect.TypeOf(SideSpec{}):
			walk(f.Type, prefix+name+".", out)
		default:
			*out = append(*out, prefix+name)
		}
	}
}

// compares: the rule reads the field both now and before the update.
func compares(rule, field string) bool {
	return strings.Contains(rule, "self.spec."+field) && strings.Contains(rule, "oldSelf.spec."+field)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// rootRules returns the generated CRD's transition rules on the SpiralBench: the one for
// measured fields, the one for placement and the one for acceptance.
func rootRules(t *testing.T) (measured, placement, acceptance string) {
	t.Helper()
	data, err := os.ReadFile("../../config/crd/bases/spiralbench.io_spiralbenches.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	for _, r := range crd.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations {
		switch {
		case strings.HasPrefix(r.Message, "a started bench keeps measuring the same thing"):
			measured = r.Rule
		case strings.HasPrefix(r.Message, "placement (topology.placement"):
			placement = r.Rule
		case strings.HasPrefix(r.Message, "spec.acceptance is fixed once the bench has started"):
			acceptance = r.Rule
		}
	}
	if measured == "" || placement == "" || acceptance == "" {
		t.Fatal("the CRD lacks the immutability rules (run make manifests)")
	}
	return measured, placement, acceptance
}
