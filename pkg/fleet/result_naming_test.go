package fleet

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestResultNamesAreValidAndEndInTheirTag(t *testing.T) {
	long := strings.Repeat("gpu-node.", 30) + "x" // 271 characters, a valid node name is at most 253
	long = long[len(long)-253:]
	const tag = "0123456789abcdef"
	for _, node := range []string{"gpu-7", "a.b.c", long} {
		name := ResultName("pool", 12, node, tag)
		if name != ResultName("pool", 12, node, tag) || len(validation.IsDNS1123Subdomain(name)) > 0 || !strings.HasSuffix(name, "-"+tag) {
			t.Errorf("%q: name %q", node, name)
		}
		if value := NodeLabelValue(node); len(validation.IsValidLabelValue(value)) > 0 {
			t.Errorf("%q: label value %q", node, value)
		}
	}
	if NodeLabelValue("gpu-7") != "gpu-7" {
		t.Error("a short node name is its own label value")
	}
}
