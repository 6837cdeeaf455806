package summary

import (
	"reflect"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// gpucopyPeers is a copy bench's summary on two GPUs as the data plane writes it
// (dataplane/tests/unit/gpucopy/peer_summary_test.cpp pins the same form).
func gpucopyPeers(part string) string {
	msg := strings.Replace(ncclRank1, `"transport":"nccl","role":"rank"`, `"transport":"gpucopy","role":"loopback"`, 1)
	return strings.TrimSuffix(msg, "}") + `,"gpucopy":{"gpus":[[0,0,5,16],[1,0,5,16]],"rows":[],` + part + `}}`
}

func TestCopyPeersBecomeMatricesLinksAndAggregate(t *testing.T) {
	s, err := Parse(gpucopyPeers(`"devices":[0,1],"links":[[0,1,"NV18",1]],` +
		`"peer":[["ce","uni",268435456,[[-1,371250],[370500,-1]]],["sm","bi",268435456,[[-1,300100],[299800,-1]]]],` +
		`"host":[["h2d",268435456,[55300,55200],[30100,29900],59800]],"trimmed":{"rows":3,"peer":2}`))
	if err != nil {
		t.Fatal(err)
	}
	c := Merge([]Part{{Summary: &s, Receives: true, Sends: true}}, 0, 0).Copies
	if c == nil {
		t.Fatal("no copies")
	}
	if want := []sbv1.GPUPeerLink{{DeviceA: 0, DeviceB: 1, Path: "NV18", PeerAccess: true}}; !reflect.DeepEqual(c.PeerLinks, want) {
		t.Errorf("links = %+v", c.PeerLinks)
	}
	if len(c.PeerMatrices) != 2 {
		t.Fatalf("matrices = %+v", c.PeerMatrices)
	}
	m := c.PeerMatrices[1]
	if m.Method != sbv1.CopyPeerSM || m.Mode != sbv1.CopyPeerBidirectional || m.Bytes != 268435456 ||
		!reflect.DeepEqual(m.MegabytesPerSecond, [][]int64{{-1, 300100}, {299800, -1}}) {
		t.Errorf("sm bi matrix = %+v", m)
	}
	want := []sbv1.CopyHostAggregate{{Direction: "H2D", Bytes: 268435456, AloneMBps: []int64{55300, 55200},
		TogetherMBps: []int64{30100, 29900}, AggregateMBps: 59800}}
	if !reflect.DeepEqual(c.HostAggregate, want) {
		t.Errorf("host = %+v", c.HostAggregate)
	}
	if !strings.Contains(c.PeerNote, "2 matrices left out") {
		t.Errorf("note = %q", c.PeerNote)
	}
}

func TestCopyPeersKeepTheStatusBounds(t *testing.T) {
	row := `[1,2,3,4,5,6,7,8,9,10]`
	rows := strings.Repeat(row+",", 9) + row
	s, err := Parse(gpucopyPeers(`"peer":[["ce","uni",8,[` + rows + `]]],"peer_note":"one GPU: no pairs to measure"`))
	if err != nil {
		t.Fatal(err)
	}
	c := Merge([]Part{{Summary: &s, Receives: true, Sends: true}}, 0, 0).Copies
	if got := c.PeerMatrices[0].MegabytesPerSecond; len(got) != 8 || len(got[7]) != 8 {
		t.Errorf("a 10x10 matrix kept as %dx%d, want 8x8", len(got), len(got[7]))
	}
	if c.PeerNote != "one GPU: no pairs to measure" {
		t.Errorf("note = %q", c.PeerNote)
	}
}

func TestMalformedPeerPartsAreRefused(t *testing.T) {
	for _, part := range []string{
		`"peer":[["dma","uni",8,[]]]`,
		`"peer":[["ce","uni",8]]`,
		`"links":[[0,1,"NV18"]]`,
		`"host":[["d2d",8,[],[],0]]`,
	} {
		if _, err := Parse(gpucopyPeers(part)); err == nil {
			t.Errorf("%s parsed", part)
		}
	}
}
