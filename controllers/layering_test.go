// Package controllers_test checks the operator's layering: the bench and fleet reconcilers
// share only benchstate, and benchstate imports neither.
package controllers_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/spiralbench/spiralbench/controllers/"

// forbidden: which of the operator's packages each package must not import.
var forbidden = map[string][]string{
	"benchctrl":  {"fleetctrl"},
	"fleetctrl":  {"benchctrl"},
	"benchstate": {"benchctrl", "fleetctrl"},
}

func TestReconcilersShareOnlyBenchstate(t *testing.T) {
	for pkg, not := range forbidden {
		files, err := filepath.Glob(filepath.Join(pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no files (%v)", pkg, err)
		}
		for _, f := range files {
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range parsed.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				for _, n := range not {
					if strings.TrimPrefix(path, module) == n {
						t.Errorf("%s imports %s: the reconcilers share only controllers/benchstate", f, path)
					}
				}
			}
		}
	}
}
