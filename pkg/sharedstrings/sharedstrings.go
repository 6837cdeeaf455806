// Package sharedstrings is a cache transform that makes the strings many cached objects repeat
// share one copy.
//
// A fleet's round keeps a bench a node and suite step in the manager's cache, with its attempt
// results and node results: at 10,000 nodes some 70,000 objects whose labels, owner
// references, finalizers, condition types and reasons, spec values and environment (driver,
// kernel, NIC) are the same strings, each decoded into its own copy. The manager's Go heap is
// held under a limit, and near it the collector's cost grows with every live byte
// (docs/benchmarks/fleet.md); Go's unique package gives each distinct string one canonical copy,
// which the collector frees when no object holds it any more.
//
// Strings are immutable, so an object whose strings are shared reads, compares, deep-copies and
// marshals exactly as before; nothing else about it changes.
package sharedstrings

import (
	"reflect"
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxShared is the longest string shared: longer ones (messages naming a node, digests) are
// rarely repeated, and a canonical copy of a string held once costs more than it saves.
const maxShared = 128

// Transform shares the repeated strings of a cached object; obj is the informer's own, just
// decoded. ObjectMeta's per-object strings (name, uid, resourceVersion, annotation values such
// as the provenance mark) are left as they are.
func Transform(obj any) (any, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		share(v.Elem())
	}
	return obj, nil
}

var objectMetaType = reflect.TypeOf(metav1.ObjectMeta{})

func share(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(canonical(v.String()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			share(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == objectMetaType {
			if m, ok := v.Addr().Interface().(*metav1.ObjectMeta); ok {
				shareMeta(m)
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				share(f)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // bytes, not strings
		}
		for i := 0; i < v.Len(); i++ {
			share(v.Index(i))
		}
	case reflect.Map:
		if m, ok := v.Interface().(map[string]string); ok && v.CanSet() {
			v.Set(reflect.ValueOf(sharedMap(m, true)))
		}
	}
}

// shareMeta shares what objects of a kind repeat: the namespace, labels, annotation keys,
// owner references and finalizers.
func shareMeta(m *metav1.ObjectMeta) {
	m.Namespace = canonical(m.Namespace)
	m.Labels = sharedMap(m.Labels, true)
	m.Annotations = sharedMap(m.Annotations, false)
	for i := range m.OwnerReferences {
		r := &m.OwnerReferences[i]
		r.APIVersion, r.Kind, r.Name, r.UID = canonical(r.APIVersion), canonical(r.Kind), canonical(r.Name), canonical(r.UID)
	}
	for i := range m.Finalizers {
		m.Finalizers[i] = canonical(m.Finalizers[i])
	}
}

// sharedMap is m with its keys (and its values, when values) shared; a map's keys cannot be
// replaced in place, so it is a new map.
func sharedMap(m map[string]string, values bool) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, val := range m {
		if values {
			val = canonical(val)
		}
		out[canonical(k)] = val
	}
	return out
}

func canonical[S ~string](s S) S {
	if s == "" || len(s) > maxShared {
		return s
	}
	return unique.Make(s).Value()
}
