// Package rules builds the CRDs' CEL rules that follow from the bench kinds' profiles
// (pkg/benchkind) and the API's Go types, and reads the hand-written ones too long for a marker
// line (api/v1alpha1/*_rules.yaml); hack/gen-admission writes them as markers, and
// test/newkind evaluates them for a kind that exists only in a test.
package rules

// Rule is one x-kubernetes-validations entry.
type Rule struct{ Rule, Message string }
