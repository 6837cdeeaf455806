package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func newWatch(k *kube) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use: "watch NAME", Short: "Follow a bench until it finishes, then print its results (exit 3 when it did not pass)",
		Args: cobra.ExactArgs(1), ValidArgsFunction: k.benchNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ns, err := k.client()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			out := cmd.OutOrStdout()
			sb, err := follow(ctx, out, c, client.ObjectKey{Namespace: ns, Name: args[0]})
			if err != nil {
				return err
			}
			fmt.Fprintln(out)
			if err := printBench(out, sb, ""); err != nil {
				return err
			}
			if !meta.IsStatusConditionTrue(sb.Status.Conditions, sbv1.ConditionPassed) {
				return exitCode{code: exitNotPassed} // a pipeline gate: finished but did not pass
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 24*time.Hour, "give up after this long")
	return cmd
}

// follow prints each change of phase, progress or active cell until the bench finishes.
func follow(ctx context.Context, w io.Writer, c client.Client, key client.ObjectKey) (*sbv1.SpiralBench, error) {
	last := ""
	for {
		sb := &sbv1.SpiralBench{}
		if err := c.Get(ctx, key, sb); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("%s  cells %s", sb.Status.Phase, sb.Status.Progress)
		if a := sb.Status.ActiveAttempt; a != nil {
			line += fmt.Sprintf("  running cell %d repeat %d (attempt %d)", a.CellIndex, a.Repeat, a.Attempt)
		}
		if r := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionRunning); r != nil && r.Status != "True" {
			line += "  " + r.Message
		}
		if line != last {
			fmt.Fprintf(w, "%s  %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
		if sb.Status.Phase == sbv1.PhaseCompleted || sb.Status.Phase == sbv1.PhaseFailed {
			sb.APIVersion, sb.Kind = sbv1.GroupVersion.String(), "SpiralBench"
			return sb, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s/%s did not finish: %w", key.Namespace, key.Name, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}
