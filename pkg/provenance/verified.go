package provenance

import (
	"hash/maphash"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A fleet's step checks the mark of every bench and node result of its round, and does so on
// every step: at 10,000 nodes, tens of thousands of JSON encodings and HMACs a step, most of
// them of objects unchanged since the last. An object the apiserver has not written since
// (same uid, same resourceVersion) says what it said when its mark checked out, so that answer
// is remembered; any write, the manager's or an editor's, gives a new version and a new check.
// Only marks that checked out are remembered: a foreign object is checked each time it is met.

// maxVerified bounds the memory: past it the set starts again empty (the next checks rebuild it).
const maxVerified = 1 << 18

// verifiedObject is an object's kind, uid, version and mark, digested to 128 bits by two keyed
// hashes whose seeds are the process's secret: 16 bytes an entry and no pointers, where the
// strings themselves kept each remembered version's uid and mark alive (26 MB of a 10,000-node
// manager's live heap, docs/benchmarks/fleet.md) and made the collector scan every entry. A
// mark is chosen by whoever wrote the object, but without the seeds no one can aim for a
// collision; the uid and version, which the apiserver assigns, are in the digest too.
type verifiedObject [2]uint64

var verifiedSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

type verifiedSet struct {
	mu sync.Mutex
	m  map[verifiedObject]struct{}
}

func verifiedKey(obj client.Object) (verifiedObject, bool) {
	uid, rv := obj.GetUID(), obj.GetResourceVersion()
	if uid == "" || rv == "" {
		return verifiedObject{}, false // not read from the apiserver: nothing to know it by
	}
	// Read once: at 10,000 nodes the annotation look-up cost more than the two digests.
	parts := [...]string{kindOf(obj), string(uid), rv, obj.GetAnnotations()[Annotation]}
	var key verifiedObject
	for i, seed := range verifiedSeeds {
		var h maphash.Hash
		h.SetSeed(seed)
		for _, part := range parts {
			_, _ = h.WriteString(part)
			_ = h.WriteByte(0) // a separator: no two splits of one string digest alike
		}
		key[i] = h.Sum64()
	}
	return key, true
}

func (s *verifiedSet) has(k verifiedObject) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[k]
	return ok
}

func (s *verifiedSet) add(k verifiedObject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) >= maxVerified {
		s.m = make(map[verifiedObject]struct{})
	}
	s.m[k] = struct{}{}
}

// VerifyStored is Verify for an object read from the apiserver (or the cache), with content
// computed only when the object's version has not checked out before.
func (k *Key) VerifyStored(obj client.Object, content func() any) error {
	key, known := verifiedKey(obj)
	if known && k.verified.has(key) {
		return nil
	}
	if err := k.Verify(obj, content()); err != nil {
		return err
	}
	if known {
		k.verified.add(key)
	}
	return nil
}
