package main

import (
	"path/filepath"
	"strings"
	"testing"
)

var root = filepath.Join("..", "..")

// docs/security.md's permission tables are config/rbac's grants, each with its reason: a
// grant added by an RBAC marker fails here until reasons.go explains it and make api-docs ran.
func TestSecurityDocMatchesTheRBAC(t *testing.T) {
	if err := run(filepath.Join(root, "config", "rbac"), filepath.Join(root, "docs", "security.md"), false); err != nil {
		t.Fatal(err)
	}
}

func TestEveryGrantNeedsItsReason(t *testing.T) {
	saved := reasons["ClusterRole/spiralbench-manager core/pods"]
	defer func() { reasons["ClusterRole/spiralbench-manager core/pods"] = saved }()
	reasons["ClusterRole/spiralbench-manager core/pods"] = reason{"create, get", saved.why}
	_, err := render(filepath.Join(root, "config", "rbac"))
	if err == nil || !strings.Contains(err.Error(), `ClusterRole/spiralbench-manager core/pods grants "create, delete, deletecollection, get, list, watch"`) {
		t.Fatalf("a verb without its reason must fail, got %v", err)
	}
	reasons["ClusterRole/spiralbench-manager core/widgets"] = reason{"get", "none"}
	defer delete(reasons, "ClusterRole/spiralbench-manager core/widgets")
	if _, err := render(filepath.Join(root, "config", "rbac")); err == nil || !strings.Contains(err.Error(), "core/widgets is granted nowhere") {
		t.Fatalf("a stale reason must fail, got %v", err)
	}
}

func TestSpliceReplacesOnlyBetweenMarkers(t *testing.T) {
	doc := "a\n<!-- BEGIN GENERATED x: edit elsewhere -->\nold\n<!-- END GENERATED x -->\nb\n"
	got, err := splice([]byte(doc), map[string]string{"x": "new\n"})
	if err != nil || string(got) != "a\n<!-- BEGIN GENERATED x: edit elsewhere -->\nnew\n<!-- END GENERATED x -->\nb\n" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := splice([]byte("no markers"), map[string]string{"x": ""}); err == nil {
		t.Fatal("missing markers must fail")
	}
}
