// Command apidocs renders the field reference of docs/api-reference.md from the generated CRD,
// so the reference says exactly what the apiserver (and `kubectl explain`) enforces.
//
//	go run ./hack/apidocs config/crd/bases/spiralbench.io_spiralbenches.yaml > docs/api-reference.md
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: apidocs CRD.yaml...")
		os.Exit(2)
	}
	for i, path := range os.Args[1:] {
		render(path, i == 0)
	}
}

// embedded are fields holding a type documented elsewhere in the reference: the fleet's
// template is a SpiralBench spec, rendered once under SpiralBench.
var embedded = map[string]string{
	".spec.template.spec": "A SpiralBench spec (see `.spec` of SpiralBench above), without placement: the fleet pins each bench to its nodes.",
}

func render(path string, first bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var crd apiextv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	v := crd.Spec.Versions[0]
	if !first {
		fmt.Println()
	}
	fmt.Printf("# %s %s field reference\n\n", crd.Spec.Names.Kind, v.Name)
	if first {
		fmt.Println("Generated from the CRD by `make api-docs` (do not edit; `make verify` checks it is current).")
		fmt.Println("Each row: the field path, its type, constraints the apiserver enforces, and its documentation.")
		fmt.Println("Cross-field rules (CEL) follow each object's table with the message a violation returns.")
	}
	root := v.Schema.OpenAPIV3Schema
	for _, top := range []string{"spec", "status"} {
		s := root.Properties[top]
		walk("."+top, &s)
	}
	if len(root.XValidations) > 0 {
		fmt.Print("\n## Object-level rules\n\n")
		for _, r := range root.XValidations {
			fmt.Printf("- %s\n", r.Message)
		}
	}
}

// walk prints one object's table, then recurses into its object and list-of-object fields.
func walk(path string, s *apiextv1.JSONSchemaProps) {
	if note, ok := embedded[path]; ok {
		fmt.Printf("\n## `%s`\n\n%s\n", path, note)
		return
	}
	fmt.Printf("\n## `%s`\n\n", path)
	if s.Description != "" {
		fmt.Println(oneLine(s.Description) + "\n")
	}
	fmt.Println("| field | type | constraints | description |")
	fmt.Println("|---|---|---|---|")
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := sortedKeys(s.Properties)
	for _, n := range names {
		p := s.Properties[n]
		fmt.Printf("| `%s` | %s | %s | %s |\n", n, typeOf(&p), constraints(&p, required[n]), oneLine(p.Description))
	}
	for _, r := range s.XValidations {
		fmt.Printf("\nRule: %s\n", r.Message)
	}
	for _, n := range names {
		p := s.Properties[n]
		child := &p
		suffix := ""
		if p.Type == "array" && p.Items != nil && p.Items.Schema != nil {
			child, suffix = p.Items.Schema, "[]"
		}
		if child.Type == "object" && len(child.Properties) > 0 && !isKubernetesType(path+"."+n) {
			walk(path+"."+n+suffix, child)
		}
	}
}

// isKubernetesType marks embedded core types documented upstream (affinity, tolerations, conditions).
func isKubernetesType(path string) bool {
	for _, s := range []string{".affinity", ".tolerations", ".conditions", ".imagePullSecrets"} {
		if strings.HasSuffix(path, s) {
			return true
		}
	}
	return false
}

func typeOf(p *apiextv1.JSONSchemaProps) string {
	switch {
	case p.Type == "array" && p.Items != nil && p.Items.Schema != nil:
		return "[]" + typeOf(p.Items.Schema)
	case p.Type == "object" && p.AdditionalProperties != nil:
		return "map[string]string"
	case p.Format != "":
		return p.Type + " (" + p.Format + ")"
	}
	return p.Type
}

func constraints(p *apiextv1.JSONSchemaProps, required bool) string {
	var c []string
	if required {
		c = append(c, "required")
	}
	if p.Default != nil {
		c = append(c, "default "+string(p.Default.Raw))
	}
	if len(p.Enum) > 0 {
		var vals []string
		for _, e := range p.Enum {
			var s any
			_ = json.Unmarshal(e.Raw, &s)
			vals = append(vals, fmt.Sprint(s))
		}
		c = append(c, "one of "+strings.Join(vals, ", "))
	}
	item := p
	if p.Type == "array" && p.Items != nil && p.Items.Schema != nil {
		item = p.Items.Schema
		if p.MaxItems != nil {
			c = append(c, fmt.Sprintf("at most %d items", *p.MaxItems))
		}
		if len(item.Enum) > 0 {
			c = append(c, constraints(item, false))
		}
	}
	if item.Minimum != nil {
		c = append(c, fmt.Sprintf("min %g", *item.Minimum))
	}
	if item.Maximum != nil {
		c = append(c, fmt.Sprintf("max %g", *item.Maximum))
	}
	if p.MaxLength != nil {
		c = append(c, fmt.Sprintf("max length %d", *p.MaxLength))
	}
	if p.Pattern != "" {
		c = append(c, "pattern `"+strings.ReplaceAll(p.Pattern, "|", `\|`)+"`")
	}
	return strings.Join(c, "; ")
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

func sortedKeys(m map[string]apiextv1.JSONSchemaProps) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
