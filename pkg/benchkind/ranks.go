package benchkind

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Roles: the spiral-dataplane subcommands today's ranks run.
const (
	RoleServer   = "server"
	RoleClient   = "client"
	RoleLoopback = "loopback"
)

// Side names a side of spec.topology.
type Side int

const (
	// SideServer is topology.server: the receiver (the RX port for RawEthernet).
	SideServer Side = iota
	// SideClient is topology.client: the sender (the TX port for RawEthernet).
	SideClient
)

// Spec returns the side's part of the topology.
func (s Side) Spec(spec *sbv1.SpiralBenchSpec) sbv1.SideSpec {
	if s == SideClient {
		return spec.Topology.Client
	}
	return spec.Topology.Server
}

// Rank is one pod of an attempt. Rank 0 is the rendezvous: it is created first, gets the
// readiness probe on the data plane's ready file and, when there are other ranks, binds and
// accepts; ranks 1..N-1 are created together once rank 0 is Ready, and are given rank 0's
// address (the data plane's control channel connects there).
type Rank struct {
	// Index is the rank's position, set by Ranks.
	Index int
	// Name is the pod-name suffix and the spiralbench.io/role label: unique within an attempt.
	Name string
	// Role is the spiral-dataplane subcommand the pod runs (its first argument).
	Role string
	// Sides are the topology sides whose devices, GPUs, networks, huge pages, cores and
	// privilege the pod takes. Sides[0] is the primary one: its hostNetwork and its master
	// core apply, and its first network names the RoCE netdev.
	Sides []Side
	// Node indexes the bench's node slots (NodeSlots, status.nodes).
	Node int
	// Receives and Sends say which counters of the rank's summary the repeat result takes:
	// RX counters from receivers, TX counters from senders. A rank with neither contributes
	// its state, drops and loss only.
	Receives, Sends bool
}

// ServerClient is the pair today's socket and RoCE kinds run: the receiving server first,
// the sending client after it, on the second node in CrossNode.
func ServerClient(spec *sbv1.SpiralBenchSpec) []Rank {
	clientNode := 0
	if spec.Topology.Mode == sbv1.TopologyCrossNode {
		clientNode = 1
	}
	return []Rank{
		{Name: RoleServer, Role: RoleServer, Sides: []Side{SideServer}, Node: 0, Receives: true},
		{Name: RoleClient, Role: RoleClient, Sides: []Side{SideClient}, Node: clientNode, Sends: true},
	}
}

// Loopback is one in-process rank holding both sides (both ports) on one node.
func Loopback(*sbv1.SpiralBenchSpec) []Rank {
	return []Rank{{Name: RoleLoopback, Role: RoleLoopback, Sides: []Side{SideServer, SideClient}, Node: 0, Receives: true, Sends: true}}
}

// NodeSlots returns the placement of each node a bench leases, in status.nodes order:
// topology.placement for Loopback, the server's then the client's placement for CrossNode.
// Nodes are chosen distinct from one another.
func NodeSlots(spec *sbv1.SpiralBenchSpec) []*sbv1.Placement {
	t := spec.Topology
	if t.Mode == sbv1.TopologyCrossNode {
		return []*sbv1.Placement{t.Server.Placement, t.Client.Placement}
	}
	return []*sbv1.Placement{t.Placement}
}
