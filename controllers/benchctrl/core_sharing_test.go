package benchctrl

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestSharedCoresNamesEachCoreWithMoreThanOneBusyThread(t *testing.T) {
	cm := func(master *int32, pollers ...int32) *sbv1.CoreMap {
		return &sbv1.CoreMap{Master: master, Pollers: pollers}
	}
	for _, c := range []struct {
		name   string
		topo   sbv1.TopologySpec
		wanted string // "" for no sharing
	}{
		{"unpinned", sbv1.TopologySpec{}, ""},
		{"own cores", sbv1.TopologySpec{Server: sbv1.SideSpec{Cores: cm(ptr.To[int32](8), 16, 17)},
			Client: sbv1.SideSpec{Cores: cm(ptr.To[int32](8), 20, 21)}}, ""},
		{"loopback sides on one core (DAQIRI's TCP table)", sbv1.TopologySpec{
			Server: sbv1.SideSpec{Cores: cm(nil, 16, 17)}, Client: sbv1.SideSpec{Cores: cm(nil, 16, 17)}}, "cores 16, 17 run"},
		{"crossnode sides are on two nodes", sbv1.TopologySpec{Mode: sbv1.TopologyCrossNode,
			Server: sbv1.SideSpec{Cores: cm(nil, 16)}, Client: sbv1.SideSpec{Cores: cm(nil, 16)}}, ""},
		{"master on a poller", sbv1.TopologySpec{Mode: sbv1.TopologyCrossNode,
			Server: sbv1.SideSpec{Cores: cm(ptr.To[int32](16), 16, 17)}}, "cores 16 run"},
		{"poller and worker", sbv1.TopologySpec{Client: sbv1.SideSpec{Cores: &sbv1.CoreMap{Pollers: []int32{3}, Workers: []int32{3}}}}, "cores 3 run"},
	} {
		got := sharedCores(&sbv1.SpiralBenchSpec{Topology: c.topo})
		if (c.wanted == "") != (got == "") || !strings.Contains(got, c.wanted) {
			t.Errorf("%s: got %q, want one containing %q", c.name, got, c.wanted)
		}
	}
}
