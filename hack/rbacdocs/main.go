// Command rbacdocs renders the permission tables of docs/security.md from config/rbac, so the
// page lists exactly what the manager's service account and the people's roles are granted,
// with the reason for each grant (reasons.go).
//
//	go run ./hack/rbacdocs -w docs/security.md   rewrite the generated tables in place
//	go run ./hack/rbacdocs docs/security.md      fail when they are stale (make verify)
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// source is a file of config/rbac and where its grants apply.
type source struct {
	file, where string
}

// The manager's grants, in the order the table lists them.
var sources = []source{
	{"role.yaml", ""}, // a ClusterRole (cluster-wide) and a Role (Secrets)
	{"leader_election_role.yaml", "the manager's namespace"},
	{"fleet_node_writes_role.yaml", "cluster-wide, with `fleet.nodeWrites=true` only"},
}

func main() {
	write := flag.Bool("w", false, "rewrite the tables in the file instead of checking them")
	rbacDir := flag.String("rbac", "config/rbac", "directory of the RBAC manifests")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: rbacdocs [-w] [-rbac config/rbac] docs/security.md")
		os.Exit(2)
	}
	if err := run(*rbacDir, flag.Arg(0), *write); err != nil {
		fmt.Fprintln(os.Stderr, "rbacdocs:", err)
		os.Exit(1)
	}
}

func run(rbacDir, doc string, write bool) error {
	blocks, err := render(rbacDir)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	updated, err := splice(old, blocks)
	if err != nil {
		return fmt.Errorf("%s: %w", doc, err)
	}
	if write {
		return os.WriteFile(doc, updated, 0o644)
	}
	if !bytes.Equal(old, updated) {
		return fmt.Errorf("%s's permission tables differ from %s: run make api-docs", doc, rbacDir)
	}
	return nil
}

// render returns the generated blocks by name: the manager's grants and the people's roles.
func render(rbacDir string) (map[string]string, error) {
	manager, err := managerTable(rbacDir)
	if err != nil {
		return nil, err
	}
	users, err := userTable(filepath.Join(rbacDir, "user_roles.yaml"))
	if err != nil {
		return nil, err
	}
	return map[string]string{"manager-permissions": manager, "user-roles": users}, nil
}

// roles reads the Roles and ClusterRoles of a manifest file.
func roles(path string) ([]rbacv1.ClusterRole, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []rbacv1.ClusterRole // a Role's fields are a ClusterRole's without aggregation
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		var r rbacv1.ClusterRole
		if err := yaml.Unmarshal([]byte(doc), &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if r.Kind == "Role" || r.Kind == "ClusterRole" {
			out = append(out, r)
		}
	}
	return out, nil
}

func managerTable(rbacDir string) (string, error) {
	var b strings.Builder
	b.WriteString("| where | API group | resource | verbs | why |\n|---|---|---|---|---|\n")
	used := map[string]bool{}
	var problems []string
	for _, src := range sources {
		rs, err := roles(filepath.Join(rbacDir, src.file))
		if err != nil {
			return "", err
		}
		for _, r := range rs {
			where := src.where
			switch {
			case where != "":
			case r.Kind == "ClusterRole":
				where = "cluster-wide"
			default:
				where = "the manager's namespace and each of `credentials.namespaces`"
			}
			for _, g := range grants(r.Rules) {
				key := r.Kind + "/" + r.Name + " " + g.group + "/" + g.resource
				used[key] = true
				why, ok := reasons[key]
				if !ok || why.verbs != g.verbs {
					problems = append(problems, fmt.Sprintf("%s grants %q: give its reason in hack/rbacdocs/reasons.go (it says %q)", key, g.verbs, why.verbs))
					continue
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", where, g.group, g.resource, g.verbs, why.why)
			}
		}
	}
	for key := range reasons {
		if !used[key] {
			problems = append(problems, key+" is granted nowhere: remove its reason from hack/rbacdocs/reasons.go")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return "", fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return b.String(), nil
}

type grant struct{ group, resource, verbs string }

// grants flattens rules into one row per API group and resource, verbs sorted.
func grants(rules []rbacv1.PolicyRule) []grant {
	verbs := map[[2]string][]string{}
	var keys [][2]string
	for _, rule := range rules {
		for _, g := range rule.APIGroups {
			if g == "" {
				g = "core"
			}
			for _, res := range rule.Resources {
				k := [2]string{g, res}
				if _, seen := verbs[k]; !seen {
					keys = append(keys, k)
				}
				for _, v := range rule.Verbs {
					if !slices.Contains(verbs[k], v) {
						verbs[k] = append(verbs[k], v)
					}
				}
			}
		}
	}
	out := make([]grant, 0, len(keys))
	for _, k := range keys {
		sort.Strings(verbs[k])
		out = append(out, grant{k[0], k[1], strings.Join(verbs[k], ", ")})
	}
	return out
}

func userTable(path string) (string, error) {
	rs, err := roles(path)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| ClusterRole | aggregated into | grants | for |\n|---|---|---|---|\n")
	for _, r := range rs {
		who, ok := whoFor[r.Name]
		if !ok {
			return "", fmt.Errorf("%s: say whom %s is for in hack/rbacdocs/reasons.go", path, r.Name)
		}
		// The built-in view role aggregates into edit, and edit into admin.
		var into []string
		for _, to := range []string{"view", "edit", "admin"} {
			if len(into) > 0 || r.Labels["rbac.authorization.k8s.io/aggregate-to-"+to] == "true" {
				into = append(into, "`"+to+"`")
			}
		}
		if len(into) == 0 {
			into = []string{"nothing: bind it explicitly"}
		}
		var what []string
		for _, g := range grants(r.Rules) {
			what = append(what, g.resource+": "+g.verbs)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.Name, strings.Join(into, ", "), strings.Join(what, "; "), who)
	}
	return b.String(), nil
}

// splice replaces the text between each block's markers:
//
//	<!-- BEGIN GENERATED NAME: a note for editors -->
//	<!-- END GENERATED NAME -->
func splice(doc []byte, blocks map[string]string) ([]byte, error) {
	out := string(doc)
	names := make([]string, 0, len(blocks))
	for name := range blocks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		q := regexp.QuoteMeta(name)
		re := regexp.MustCompile(`(?s)<!-- BEGIN GENERATED ` + q + `\b[^>]*-->\n(.*?)<!-- END GENERATED ` + q + ` -->`)
		loc := re.FindStringSubmatchIndex(out)
		if loc == nil {
			return nil, fmt.Errorf("no <!-- BEGIN GENERATED %s --> ... <!-- END GENERATED %s --> markers", name, name)
		}
		out = out[:loc[2]] + blocks[name] + out[loc[3]:]
	}
	return []byte(out), nil
}
