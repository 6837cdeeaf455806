package fleetscale

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// auditUser is the manager's user; the apiserver's audit log records only its requests.
const auditUser = "spiralbench-manager"

// auditPolicy records the manager's requests (verb, resource, no bodies) and nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  users: [` + auditUser + `]
- level: None
`

type auditLog struct{ path string }

// configureAudit makes the apiserver write the manager's requests to WorkDir/audit.log.
func configureAudit(env *envtest.Environment, dir string) (*auditLog, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	a := &auditLog{path: filepath.Join(dir, "audit.log")}
	args := env.ControlPlane.GetAPIServer().Configure()
	args.Set("audit-policy-file", policy)
	args.Set("audit-log-path", a.path)
	args.Set("audit-log-format", "json")
	args.Set("audit-log-mode", "batch") // the apiserver does not wait on the log
	// The log rotates at this size (0 means lumberjack's 100 MB: a 10,000-node round rotated it
	// twice); tally reads the rotated files too.
	args.Set("audit-log-maxsize", "100000")
	return a, nil
}

// tally counts the manager's requests by "verb resource[/subresource]".
func (a *auditLog) tally() map[string]int {
	out := map[string]int{}
	rotated, _ := filepath.Glob(strings.TrimSuffix(a.path, ".log") + "-*.log")
	for _, path := range append(rotated, a.path) {
		a.tallyFile(path, out)
	}
	return out
}

func (a *auditLog) tallyFile(path string, out map[string]int) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		var e struct {
			Verb      string `json:"verb"`
			ObjectRef *struct {
				Resource    string `json:"resource"`
				Subresource string `json:"subresource"`
			} `json:"objectRef"`
		}
		if json.Unmarshal(s.Bytes(), &e) != nil {
			continue
		}
		key := e.Verb
		if r := e.ObjectRef; r != nil {
			key += " " + r.Resource
			if r.Subresource != "" {
				key += "/" + r.Subresource
			}
		}
		out[key]++
	}
}

// fleetResources are the requests the fleet controller makes (the rest are the bench
// controller's, or shared, like events): its results, its own status, the benches it creates,
// the node verdicts it writes.
var fleetResources = map[string]bool{"spiralbenchnoderesults": true, "spiralbenchfleets": true, "spiralbenchfleets/status": true, "nodes": true}

// FleetRequests counts the fleet controller's requests among the manager's.
func (r *Result) FleetRequests() int {
	n := 0
	for key, v := range r.ManagerRequests {
		_, resource, _ := strings.Cut(key, " ")
		if fleetResources[resource] || key == "create spiralbenches" {
			n += v
		}
	}
	return n
}
