package fleet

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// The fleet's admission rules on stragglers and baseline (api/v1alpha1/fleet_types.go) cannot
// read the built-in suites: they take a stream figure from the tcp step (and udp in Standard
// and Extended) and no latency from any. A built-in suite changed without those rules fails here.
func TestBuiltinSuitesStreamWhereTheFleetRuleSaysSo(t *testing.T) {
	want := map[sbv1.SuiteName]string{sbv1.SuiteQuick: "tcp", sbv1.SuiteStandard: "tcp,udp", sbv1.SuiteExtended: "tcp,udp"}
	for name, streams := range want {
		var got []string
		for _, s := range BuiltinSuite(name) {
			if s.Template == nil {
				continue
			}
			spec := s.Template.Spec
			if spec.Transport != sbv1.TransportNCCL && spec.Transport != sbv1.TransportGPUCopy {
				got = append(got, s.Name)
			}
			if (spec.Socket != nil && spec.Socket.Mode == sbv1.SocketModeLatency) || (spec.RoCE != nil && spec.RoCE.Mode == sbv1.RoCEModeLatency) {
				t.Errorf("%s/%s measures latency, which the fleet's latency rule says no built-in step does", name, s.Name)
			}
		}
		if strings.Join(got, ",") != streams {
			t.Errorf("%s streams in %v, the fleet's stragglers rule says %s", name, got, streams)
		}
	}
}
