package rules

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// API is what the generator reads from the API's source: markers that reflection cannot see.
type API struct {
	// Transports is spec.transport's enum, in its order: the order kinds are named in rules.
	Transports []string
	// defaults maps "Type.Field" to its +kubebuilder:default value.
	defaults map[string]string
	// embeds lists each struct's embedded types by name.
	embeds map[string][]string
}

// Embeds says whether struct t embeds a type named e (the generated <Type>Rules).
func (a *API) Embeds(t, e string) bool { return containsString(a.embeds[t], e) }

const (
	enumMarker    = "+kubebuilder:validation:Enum="
	defaultMarker = "+kubebuilder:default="
)

// ReadAPI reads the API package's source in dir.
func ReadAPI(dir string) (*API, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	a := &API{defaults: map[string]string{}, embeds: map[string][]string{}}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || strings.HasPrefix(n, "zz_generated") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					a.readType(g, s.(*ast.TypeSpec))
				}
			}
		}
	}
	if len(a.Transports) == 0 {
		return nil, fmt.Errorf("%s: no %s marker on type Transport", dir, enumMarker)
	}
	return a, nil
}

func (a *API) readType(g *ast.GenDecl, ts *ast.TypeSpec) {
	if ts.Name.Name == "Transport" {
		if v, ok := marker(g.Doc, enumMarker); ok {
			a.Transports = strings.Split(v, ";")
		}
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return
	}
	for _, f := range st.Fields.List {
		if id, ok := f.Type.(*ast.Ident); ok && len(f.Names) == 0 {
			a.embeds[ts.Name.Name] = append(a.embeds[ts.Name.Name], id.Name)
		}
		if v, ok := marker(f.Doc, defaultMarker); ok && len(f.Names) == 1 {
			a.defaults[ts.Name.Name+"."+f.Names[0].Name] = v
		}
	}
}

func marker(doc *ast.CommentGroup, prefix string) (string, bool) {
	if doc == nil {
		return "", false
	}
	for _, c := range doc.List {
		if v, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(c.Text, "//")), prefix); ok {
			return v, true
		}
	}
	return "", false
}
