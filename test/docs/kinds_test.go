// Package docs checks the documentation against the code it describes.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// Pages whose kind list must be marked, so that the check below cannot miss them.
var kindPages = []string{"api.md", "dataplane.md"}

const (
	kindsBegin = "<!-- bench-kinds:begin -->"
	kindsEnd   = "<!-- bench-kinds:end -->"
)

// The first two cells of a table row, each a `name` (the second optional).
var kindRow = regexp.MustCompile("^\\| `([^`]+)` \\|(?: `([^`]+)` \\|)?")

// Every docs page's marked kind table names exactly the registered kinds, by spec.transport
// or by the data plane's --transport, and a row naming both pairs them as the registry does.
// A kind added to pkg/benchkind without its row (or a row left for a removed one) fails here.
func TestDocsKindListsMatchTheRegistry(t *testing.T) {
	byTransport, byDataplane := map[string]string{}, map[string]string{}
	for _, tr := range benchkind.Transports() {
		k, _ := benchkind.Lookup(tr)
		byTransport[string(tr)] = k.DataplaneTransport
		byDataplane[k.DataplaneTransport] = string(tr)
	}
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	marked := map[string]bool{}
	for _, page := range pages {
		doc, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(page)
		for _, block := range kindBlocks(t, name, string(doc)) {
			marked[name] = true
			checkKindBlock(t, name, block, byTransport, byDataplane)
		}
	}
	for _, page := range kindPages {
		if !marked[page] {
			t.Errorf("docs/%s has no %s ... %s kind table", page, kindsBegin, kindsEnd)
		}
	}
}

// kindBlocks returns the text between each pair of markers of a page.
func kindBlocks(t *testing.T, page, doc string) []string {
	var out []string
	for {
		start := strings.Index(doc, kindsBegin)
		if start < 0 {
			return out
		}
		end := strings.Index(doc[start:], kindsEnd)
		if end < 0 {
			t.Errorf("docs/%s: %s without %s", page, kindsBegin, kindsEnd)
			return out
		}
		out = append(out, doc[start+len(kindsBegin):start+end])
		doc = doc[start+end+len(kindsEnd):]
	}
}

func checkKindBlock(t *testing.T, page, block string, byTransport, byDataplane map[string]string) {
	var names []string
	pairs := map[string]string{}
	for _, line := range strings.Split(block, "\n") {
		if m := kindRow.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
			if m[2] != "" {
				pairs[m[1]] = m[2]
			}
		}
	}
	// The first column names the kinds one way throughout: the first row says which.
	registry := byTransport
	if len(names) > 0 && byTransport[names[0]] == "" {
		registry = byDataplane
	}
	want := make([]string, 0, len(registry))
	for n := range registry {
		want = append(want, n)
	}
	slices.Sort(want)
	got := slices.Clone(names)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("docs/%s lists the kinds %v; pkg/benchkind registers %v", page, names, want)
	}
	for first, second := range pairs {
		if other, ok := registry[first]; ok && other != second && other != "" {
			t.Errorf("docs/%s pairs %s with %s; pkg/benchkind pairs it with %s", page, first, second, other)
		}
	}
}
