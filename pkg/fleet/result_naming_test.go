package fleet

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestResultNamesAreDeterministicValidAndDistinct(t *testing.T) {
	long := strings.Repeat("gpu-node.", 30) + "x" // 271 characters, a valid node name is at most 253
	long = long[len(long)-253:]
	for _, node := range []string{"gpu-7", "a.b.c", long} {
		name := ResultName("pool", 12, node)
		if name != ResultName("pool", 12, node) || len(validation.IsDNS1123Subdomain(name)) > 0 {
			t.Errorf("%q: name %q", node, name)
		}
		if value := NodeLabelValue(node); len(validation.IsValidLabelValue(value)) > 0 {
			t.Errorf("%q: label value %q", node, value)
		}
	}
	if ResultName("pool", 1, "a") == ResultName("pool", 11, "a") || ResultName("pool", 1, long) == ResultName("pool", 1, long[1:]) ||
		ResultName("pool-1", 2, "x") == ResultName("pool", 1, "2-x") {
		t.Error("two rows share a name")
	}
	if NodeLabelValue("gpu-7") != "gpu-7" {
		t.Error("a short node name is its own label value")
	}
}
