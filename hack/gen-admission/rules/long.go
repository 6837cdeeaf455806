package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Long reads the hand-written rules too long for a marker line (a kubebuilder marker is one
// line): dir's *_rules.yaml files map a type's name to its rules, folded over short lines.
// Each type embeds <Type>Rules inline, which the generator declares with them as markers.
// files names the file of each type's rules.
func Long(dir string) (rules map[string][]Rule, files map[string]string, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*_rules.yaml"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(paths)
	rules, files = map[string][]Rule{}, map[string]string{}
	for _, f := range paths {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		var byType map[string][]struct{ Rule, Message string }
		if err := yaml.UnmarshalStrict(data, &byType); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		for t, rs := range byType {
			if _, dup := files[t]; dup {
				return nil, nil, fmt.Errorf("%s: the rules of %s are in two files", f, t)
			}
			files[t] = filepath.Base(f)
			for _, r := range rs {
				if r.Rule == "" || r.Message == "" || strings.ContainsAny(r.Rule+r.Message, "\n\t") {
					return nil, nil, fmt.Errorf("%s: %s: each rule needs a rule and a message, folded (>-) onto one line", f, t)
				}
				rules[t] = append(rules[t], Rule{r.Rule, r.Message})
			}
		}
	}
	return rules, files, nil
}
