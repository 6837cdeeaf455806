package fleetctrl

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// catalogKey is the key of a catalog ConfigMap.
const catalogKey = "catalog.yaml"

// catalogOf is the fleet's reference catalog: its ConfigMap's catalog.yaml
// (spec.references.catalogConfigMap), else the manager's. A ConfigMap that cannot be read or
// parsed gives an empty catalog, so every node is NoReference (never silently passed), and a
// Warning event says why.
func (r *Reconciler) catalogOf(ctx context.Context, v *fleetView) *fleet.Catalog {
	if v.catalog != nil {
		return v.catalog
	}
	v.catalog = r.Catalog
	if v.catalog == nil {
		v.catalog = fleet.BuiltinCatalog()
	}
	name := v.f.Spec.References.CatalogConfigMap
	if name == "" {
		return v.catalog
	}
	var cm corev1.ConfigMap
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: v.f.Namespace, Name: name}, &cm)
	if err == nil {
		var c *fleet.Catalog
		if c, err = fleet.ParseCatalog([]byte(cm.Data[catalogKey])); err == nil {
			v.catalog = c
			return c
		}
	}
	r.event(v.f, true, "CatalogUnreadable", "reference catalog ConfigMap %s (key %s): %v; every node is judged NoReference until it is fixed", name, catalogKey, err)
	v.catalog = &fleet.Catalog{Version: 1}
	return v.catalog
}
