package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func newWatch(k *kube) *cobra.Command {
	var timeout time.Duration
	var liveMode, logPath string
	cmd := &cobra.Command{
		Use: "watch [NAMESPACE/]NAME | --log FILE", Short: "Follow a bench live until it finishes, then print its results (exit 3 when it did not pass)",
		Long: "On a terminal, watch draws the running cell's live view once a second: a TX and an RX bar per pair, queue or " +
			"queue pair with NOW and PEAK totals (and the NIC's PHY counters where the data plane reads them), from the " +
			"progress lines of the cell pods' logs, streamed through the API server. Elsewhere (or with --live=false) it " +
			"prints a line per change of phase, progress or active cell.",
		Example: "  sbctl watch tcp-sweep                 # live bars on a terminal, a line per change elsewhere\n" +
			"  sbctl watch tcp-sweep --live=false    # lines only (CI logs); exit 3 when the bench did not pass\n" +
			"  spiral-dataplane client ... | sbctl watch --log -   # a data plane run outside Kubernetes",
		Args: func(cmd *cobra.Command, args []string) error {
			if logPath != "" {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		ValidArgsFunction: k.benchNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if logPath != "" {
				_, width := liveWanted("true", cmd.OutOrStdout())
				return watchLog(cmd.Context(), cmd.OutOrStdout(), logPath, width)
			}
			if liveMode != "auto" && liveMode != "true" && liveMode != "false" {
				return fmt.Errorf("--live %q: use true, false or auto", liveMode)
			}
			c, ns, err := k.client()
			if err != nil {
				return err
			}
			key, err := benchKey(args[0], ns)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			out := cmd.OutOrStdout()
			var lf *liveFollower
			if on, width := liveWanted(liveMode, out); on {
				cs, err := k.clientset()
				if err != nil {
					return err
				}
				lf = newLiveFollower(cs, width)
				defer lf.stop()
			}
			sb, err := follow(ctx, out, c, key, lf)
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
	cmd.Flags().StringVar(&logPath, "log", "", "draw the live view from progress lines in this file, or - for stdin (a data plane run outside Kubernetes), instead of a bench")
	cmd.Flags().StringVar(&liveMode, "live", "auto", "draw the live view: true, false, or auto (when the output is a terminal)")
	return cmd
}

// follow prints each change of phase, progress or active cell until the bench finishes.
// With a live follower it redraws the live view every second instead.
func follow(ctx context.Context, w io.Writer, c client.Client, key client.ObjectKey, lf *liveFollower) (*sbv1.SpiralBench, error) {
	last := ""
	seen := false
	for {
		sb := &sbv1.SpiralBench{}
		if err := c.Get(ctx, key, sb); err != nil {
			if seen && apierrors.IsNotFound(err) {
				if lf != nil {
					lf.stop()
				}
				fmt.Fprintf(w, "%s  %s/%s was deleted while watched: no verdict (results uploaded before, if any, stay in the bucket)\n",
					time.Now().Format("15:04:05"), key.Namespace, key.Name)
				return nil, exitCode{code: exitNotPassed}
			}
			return nil, err
		}
		seen = true
		line := fmt.Sprintf("%s  cells %s", sb.Status.Phase, cellsSummary(sb))
		if a := sb.Status.ActiveAttempt; a != nil {
			line += fmt.Sprintf("  running cell %d repeat %d (attempt %d)", a.CellIndex, a.Repeat, a.Attempt)
		}
		if r := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionRunning); r != nil && r.Status != "True" {
			line += "  " + r.Message
		}
		if lf != nil {
			lf.update(ctx, w, sb, time.Now().Format("15:04:05")+"  "+line)
		} else if line != last {
			fmt.Fprintf(w, "%s  %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
		if sb.Status.Phase == sbv1.PhaseCompleted || sb.Status.Phase == sbv1.PhaseFailed {
			sb.APIVersion, sb.Kind = sbv1.GroupVersion.String(), "SpiralBench"
			attachAttempts(ctx, c, sb)
			return sb, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s/%s did not finish: %w", key.Namespace, key.Name, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

// liveWanted decides the live view from --live and whether out is a terminal, and its width.
func liveWanted(mode string, out io.Writer) (bool, int) {
	width := 100
	f, isFile := out.(*os.File)
	tty := isFile && term.IsTerminal(int(f.Fd()))
	if tty {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			width = w
		}
	}
	switch mode {
	case "true":
		return true, width
	case "false":
		return false, width
	}
	return tty, width
}
