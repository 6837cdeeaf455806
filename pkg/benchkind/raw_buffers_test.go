package benchkind

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// The data plane refuses batch > ring and pool < ring + 2 x batch (raw_parse.cpp); every
// size RawBuffers picks for an unset field must pass both checks, and set fields are kept.
func TestRawBuffersFitTheDataplaneChecks(t *testing.T) {
	cases := []struct {
		name             string
		spec             sbv1.RawEthernetSpec
		batch            int32
		wantRing, wantPl int32
	}{
		{"defaults for small batches", sbv1.RawEthernetSpec{}, 256, 1024, 8191},
		{"batch equal to the default ring", sbv1.RawEthernetSpec{}, 1024, 1024, 8191},
		{"preset batch 4096", sbv1.RawEthernetSpec{}, 4096, 4096, 16383},
		{"preset batch 10240", sbv1.RawEthernetSpec{}, 10240, 16384, 65535},
		{"explicit ring kept, pool sized to it", sbv1.RawEthernetSpec{RingDescriptors: 8192}, 4096, 8192, 32767},
		{"explicit both kept", sbv1.RawEthernetSpec{RingDescriptors: 2048, PoolBuffers: 5000}, 1024, 2048, 5000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ring, pool := RawBuffers(&c.spec, c.batch)
			if ring != c.wantRing || pool != c.wantPl {
				t.Fatalf("RawBuffers(%+v, %d) = ring %d, pool %d; want %d, %d", c.spec, c.batch, ring, pool, c.wantRing, c.wantPl)
			}
			if c.spec.RingDescriptors == 0 && ring < c.batch {
				t.Errorf("ring %d below batch %d: the data plane refuses it", ring, c.batch)
			}
			if c.spec.PoolBuffers == 0 && int64(pool) < int64(ring)+2*int64(c.batch) {
				t.Errorf("pool %d below ring + 2 x batch: the data plane refuses it", pool)
			}
		})
	}
}
