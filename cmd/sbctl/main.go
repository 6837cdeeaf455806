// Command sbctl follows SpiralBenches and prints their results.
//
//	sbctl watch tcp-sweep -n default     # progress until it finishes, then the table
//	sbctl results tcp-sweep              # the results table now
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/report"
)

func main() {
	var kubeconfig, namespace string
	var timeout time.Duration
	root := &cobra.Command{Use: "sbctl", Short: "Follow SpiralBenches and print their results", SilenceUsage: true}
	root.PersistentFlags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	root.PersistentFlags().StringVarP(&namespace, "namespace", "n", "", "namespace (default: the kubeconfig's)")

	connect := func() (client.Client, string, error) {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = kubeconfig
		cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
		cfg, err := cc.ClientConfig()
		if err != nil {
			return nil, "", err
		}
		ns := namespace
		if ns == "" {
			if ns, _, err = cc.Namespace(); err != nil {
				return nil, "", err
			}
		}
		scheme := runtime.NewScheme()
		if err := sbv1.AddToScheme(scheme); err != nil {
			return nil, "", err
		}
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		return c, ns, err
	}

	root.AddCommand(&cobra.Command{
		Use: "results NAME", Short: "Print a bench's results table", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ns, err := connect()
			if err != nil {
				return err
			}
			sb := &sbv1.SpiralBench{}
			if err := c.Get(cmd.Context(), client.ObjectKey{Namespace: ns, Name: args[0]}, sb); err != nil {
				return err
			}
			return printResults(sb)
		},
	})

	watch := &cobra.Command{
		Use: "watch NAME", Short: "Follow a bench until it finishes, then print its results", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ns, err := connect()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			sb, err := follow(ctx, c, client.ObjectKey{Namespace: ns, Name: args[0]})
			if err != nil {
				return err
			}
			if err := printResults(sb); err != nil {
				return err
			}
			if !meta.IsStatusConditionTrue(sb.Status.Conditions, sbv1.ConditionPassed) {
				os.Exit(3) // a pipeline gate: finished but did not pass
			}
			return nil
		},
	}
	watch.Flags().DurationVar(&timeout, "timeout", 24*time.Hour, "give up after this long")
	root.AddCommand(watch)

	if err := root.ExecuteContext(context.Background()); err != nil {
		os.Exit(1)
	}
}

// follow prints each change of phase, progress or active cell until the bench finishes.
func follow(ctx context.Context, c client.Client, key client.ObjectKey) (*sbv1.SpiralBench, error) {
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
			fmt.Printf("%s  %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
		if sb.Status.Phase == sbv1.PhaseCompleted || sb.Status.Phase == sbv1.PhaseFailed {
			return sb, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s/%s did not finish: %w", key.Namespace, key.Name, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

func printResults(sb *sbv1.SpiralBench) error {
	fmt.Printf("\nSpiralBench %s/%s: %s %s, %s cells\n", sb.Namespace, sb.Name, sb.Spec.Transport, sb.Status.Phase, sb.Status.Progress)
	if err := report.WriteTable(os.Stdout, sb); err != nil {
		return err
	}
	for _, t := range []string{sbv1.ConditionPassed, sbv1.ConditionResultsUploaded} {
		if c := meta.FindStatusCondition(sb.Status.Conditions, t); c != nil {
			fmt.Printf("%s=%s (%s): %s\n", t, c.Status, c.Reason, c.Message)
		}
	}
	if a := sb.Status.Artifacts; a != nil {
		for _, u := range a.URIs {
			fmt.Println("  ", u)
		}
	}
	return nil
}
