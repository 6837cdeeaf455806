// Command sbctl follows SpiralBenches and shows their results. Installed as kubectl-spiralbench
// it is a kubectl plugin (`kubectl spiralbench results NAME`) and takes kubectl's flags.
//
//	sbctl watch tcp-sweep -n default     # live bars while a cell runs, then the table
//	sbctl results tcp-sweep -o wide      # the results table now (csv, json, yaml, wide)
//	sbctl report tcp-sweep -o ./out      # the HTML report with its plots
//	sbctl get tcp-sweep -o ./run         # the run's folder: runs.csv, results.jsonl, report, ...
//	sbctl compare tcp-before tcp-after   # exit 2 when a cell got significantly worse (NAME or NAMESPACE/NAME)
//	sbctl expect                         # the reference catalog's classes, where their numbers come from
//	sbctl expect 4xH200-NV18             # what a node class (or a node) should reach, and why
//	sbctl fleet gpu-node-7               # one node's verdicts over the fleets' rounds
//	sbctl verify ./run                   # every file as the operator signed it (SIGNATURE.json)
//
// Exit codes: 0 fine, 1 an error (verify: a file not as signed), 2 compare found a cell worse
// (verify: a usage error), 3 watch saw the bench not pass.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes a CI pipeline gates on.
const (
	exitError     = 1
	exitWorse     = 2
	exitNotPassed = 3
)

// exitCode is an error that carries its own exit status (and may print nothing more).
type exitCode struct {
	code int
	msg  string
}

func (e exitCode) Error() string { return e.msg }

func main() {
	root := newRoot(os.Stdout, os.Stderr, filepath.Base(os.Args[0]))
	if err := root.ExecuteContext(context.Background()); err != nil {
		var ec exitCode
		if errors.As(err, &ec) {
			if ec.msg != "" {
				fmt.Fprintln(os.Stderr, "Error:", ec.msg)
			}
			os.Exit(ec.code)
		}
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(exitError)
	}
}

// newRoot builds the command tree; binary is the name it was invoked as, so the plugin's help
// and completion say "kubectl spiralbench".
func newRoot(out, errOut io.Writer, binary string) *cobra.Command {
	root := &cobra.Command{
		Use:   "sbctl",
		Short: "Follow SpiralBenches and show their results, reports and comparisons",
		Example: "  sbctl watch tcp-sweep\n  sbctl results tcp-sweep -o csv > runs.csv\n  sbctl get tcp-sweep -o run/\n" +
			"  sbctl report tcp-sweep -o out/\n  sbctl compare tcp-before tcp-after\n\n" +
			"Exit codes: 0 fine, 1 an error, 2 compare found a cell worse, 3 watch saw the bench not pass.",
		SilenceUsage:  true,
		SilenceErrors: true, // main prints them, once
	}
	if strings.HasPrefix(binary, "kubectl-") {
		root.Use = binary
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl " + strings.TrimPrefix(binary, "kubectl-")}
	}
	root.SetOut(out)
	root.SetErr(errOut)
	k := newKube(root)
	root.AddCommand(newResults(k), newWatch(k), newReport(k), newGet(k), newCompare(k), newExpect(k), newFleet(k), newVerify(k), newGate(k), newExplain(k))
	return root
}
