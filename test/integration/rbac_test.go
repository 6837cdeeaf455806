package integration

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// The RBAC of config/rbac, installed as `kubectl apply -k config/rbac` would, against a real
// apiserver's authorizer: users are impersonated, nothing is mocked.

var update = flag.Bool("update", false, "rewrite testdata/manager-permissions.golden from the apiserver's answer")

const (
	managerNamespace = "spiralbench-system"
	managerUser      = "system:serviceaccount:" + managerNamespace + ":spiralbench-manager"
)

var installRBAC = sync.OnceValue(func() error {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: managerNamespace}}
	if err := k8sClient.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	dir := filepath.Join(repoRoot, "config", "rbac")
	var kustomization struct{ Resources []string }
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err == nil {
		err = yaml.Unmarshal(data, &kustomization)
	}
	if err != nil {
		return err
	}
	for _, file := range kustomization.Resources {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return err
		}
		for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
			var u unstructured.Unstructured
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			if u.Object == nil || u.GetKind() == "" {
				continue
			}
			if err := k8sClient.Create(ctx, &u); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("%s: %s %s: %w", file, u.GetKind(), u.GetName(), err)
			}
		}
	}
	return nil
})

func requireRBAC(t *testing.T) {
	t.Helper()
	requireEnv(t)
	if err := installRBAC(); err != nil {
		t.Fatalf("install config/rbac: %v", err)
	}
}

// clientAs acts as user. The apiserver adds the groups of an impersonated service account.
func clientAs(t *testing.T, user string) client.Client {
	t.Helper()
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{UserName: user}
	cl, err := client.New(c, client.Options{Scheme: k8sClient.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// rules asks the apiserver what c may do in ns, one "group resource verb" (or
// "nonResourceURL path verb") line each.
func rules(t *testing.T, c client.Client, ns string) map[string]bool {
	t.Helper()
	r := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}
	if err := c.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if r.Status.Incomplete {
		t.Fatalf("incomplete rules review: %s", r.Status.EvaluationError)
	}
	out := map[string]bool{}
	for _, rule := range r.Status.ResourceRules {
		names := ""
		if len(rule.ResourceNames) > 0 {
			names = " names=" + strings.Join(rule.ResourceNames, ",")
		}
		for _, g := range rule.APIGroups {
			if g == "" {
				g = "core"
			}
			for _, res := range rule.Resources {
				for _, v := range rule.Verbs {
					out[g+" "+res+" "+v+names] = true
				}
			}
		}
	}
	for _, rule := range r.Status.NonResourceRules {
		for _, u := range rule.NonResourceURLs {
			for _, v := range rule.Verbs {
				out["nonResourceURL "+u+" "+v] = true
			}
		}
	}
	return out
}

func minus(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// The manager's effective permissions, beyond what any service account may do, are held to
// testdata/manager-permissions.golden: a new RBAC marker changes this file in review.
func TestManagerPermissionsMatchTheGoldenList(t *testing.T) {
	requireRBAC(t)
	other := newNamespace(t)
	manager, nobody := clientAs(t, managerUser), clientAs(t, "system:serviceaccount:"+managerNamespace+":nobody")
	everywhere := minus(rules(t, manager, other), rules(t, nobody, other))
	own := minus(rules(t, manager, managerNamespace), rules(t, nobody, managerNamespace))
	var b strings.Builder
	b.WriteString("# The manager's permissions with config/rbac (the default install), beyond those of any service\n" +
		"# account, as the apiserver's SelfSubjectRulesReview reports them. Regenerate:\n" +
		"#   go test ./test/integration/ -run TestManagerPermissionsMatchTheGoldenList -update\n")
	b.WriteString("\n[every namespace]\n" + strings.Join(everywhere, "\n") + "\n")
	b.WriteString("\n[" + managerNamespace + " only]\n" + strings.Join(minus(toSet(own), toSet(everywhere)), "\n") + "\n")
	golden := filepath.Join("testdata", "manager-permissions.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("the manager's permissions changed; review, then run with -update:\n--- got\n%s\n--- want\n%s", b.String(), want)
	}

	// What docs/security.md promises, whatever the golden file says.
	for _, never := range []string{"core secrets get", "core secrets list", "core nodes patch", "coordination.k8s.io leases create", "core pods exec"} {
		if slices.Contains(everywhere, never) {
			t.Errorf("the manager may %q in every namespace", never)
		}
	}
	for _, mine := range []string{"core secrets get", "coordination.k8s.io leases create", "coordination.k8s.io leases update"} {
		if !slices.Contains(own, mine) {
			t.Errorf("the manager may not %q in its own namespace", mine)
		}
	}
	if slices.Contains(own, "core secrets list") || slices.Contains(own, "core secrets watch") {
		t.Error("the manager reads Secrets by name only, never lists them")
	}
}

func toSet(s []string) map[string]bool {
	out := map[string]bool{}
	for _, k := range s {
		out[k] = true
	}
	return out
}
