package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// renderCatalog is `sbctl expect` without an argument: a row per class of the catalog with what
// it matches, how many figures it holds a node to and where those numbers come from, so a user
// can tell which class a node would be and whether its numbers are worth trusting.
func renderCatalog(w io.Writer, cat *fleet.Catalog) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLASS\tMATCHES NODES REPORTING\tFIGURES\tNUMBERS FROM")
	for _, cl := range cat.Classes {
		from := "no figures: each step must pass its own rules"
		if len(cl.References) > 0 {
			from = strings.Join(sourceDocuments(cl.References), ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", cl.Name, cl.Match, len(cl.References), from)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if d := cat.Derived; d != nil {
		fmt.Fprintf(w, "A node of no class: each step's figures at >= %.2f of the ceilings of its own hardware (class %s).\n", d.MinFractionOfCeiling, fleet.DerivedClassName)
	}
	_, err := fmt.Fprintln(w, "sbctl expect CLASS (or NODE) prints each figure, the bound it must hold and its whole source.")
	return err
}

// document is what a source cites: a web address, or a page of this repository's docs/.
var document = regexp.MustCompile(`https?://[^\s,;)'"]+|docs/[\w./-]+\.md`)

// sourceDocuments are the documents a class's sources cite, each once, in order; a source that
// cites none (a user's own catalog may say anything) is listed whole.
func sourceDocuments(refs []fleet.Reference) []string {
	var docs []string
	seen := map[string]bool{}
	for _, r := range refs {
		found := document.FindAllString(r.Source, -1)
		if len(found) == 0 {
			found = []string{r.Source}
		}
		for _, d := range found {
			if !seen[d] {
				seen[d] = true
				docs = append(docs, d)
			}
		}
	}
	return docs
}
