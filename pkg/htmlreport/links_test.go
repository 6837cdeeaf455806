package htmlreport

import (
	"bytes"
	"maps"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/spiralbench/spiralbench/pkg/report"
)

// Every link of the page names a file written beside it: in the run's folder (what the
// uploader and `sbctl get` write) the data files too; in `sbctl report`'s folder, which has no
// data files, the page names them without linking them.
func TestEveryLinkNamesAFileBesideThePage(t *testing.T) {
	for _, sb := range benches() {
		data, err := report.Files(sb)
		if err != nil {
			t.Fatal(err)
		}
		views, err := Files(sb)
		if err != nil {
			t.Fatal(err)
		}
		folder := maps.Clone(data)
		maps.Copy(folder, views)
		alone, err := Standalone(sb)
		if err != nil {
			t.Fatal(err)
		}
		for name, files := range map[string]map[string][]byte{"run folder": folder, "sbctl report": alone} {
			doc, err := html.Parse(bytes.NewReader(files[FileName]))
			if err != nil {
				t.Fatal(err)
			}
			linked := 0
			for _, ref := range references(doc) {
				if _, ok := files[ref]; !ok {
					t.Errorf("%s, %s: the page links %q, which is not beside it", sb.Name, name, ref)
				}
				linked++
			}
			if linked == 0 {
				t.Errorf("%s, %s: no links", sb.Name, name)
			}
		}
		doc, _ := html.Parse(bytes.NewReader(alone[FileName]))
		if got := text(byID(t, doc, "files")); !strings.Contains(got, "runs.csv") || !strings.Contains(got, "sbctl get") {
			t.Errorf("%s: sbctl report's page says %q of the data files", sb.Name, got)
		}
	}
}
