package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
)

// kube holds kubectl's connection flags (--kubeconfig, -n, --context, --cluster, --user, ...)
// from cli-runtime, so the plugin reads them exactly as kubectl does.
type kube struct {
	flags *genericclioptions.ConfigFlags
}

func newKube(root *cobra.Command) *kube {
	k := &kube{flags: genericclioptions.NewConfigFlags(true)}
	k.flags.AddFlags(root.PersistentFlags())
	_ = root.RegisterFlagCompletionFunc("namespace", func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return k.namespaces(cmd.Context())
	})
	_ = root.RegisterFlagCompletionFunc("context", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		cfg, err := k.flags.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for n := range cfg.Contexts {
			names = append(names, n)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
	return k
}

// client connects and returns the namespace to work in (the flag's, else the kubeconfig's).
func (k *kube) client() (client.Client, string, error) {
	cfg, err := k.flags.ToRESTConfig()
	if err != nil {
		return nil, "", err
	}
	ns, _, err := k.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, "", err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	return c, ns, err
}

// clientset is for what controller-runtime's client does not do: streaming a pod's log.
func (k *kube) clientset() (*kubernetes.Clientset, error) {
	cfg, err := k.flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// get reads one bench, NAME or NAMESPACE/NAME.
func (k *kube) get(ctx context.Context, arg string) (*sbv1.SpiralBench, error) {
	c, ns, err := k.client()
	if err != nil {
		return nil, err
	}
	key, err := benchKey(arg, ns)
	if err != nil {
		return nil, err
	}
	sb := &sbv1.SpiralBench{}
	if err := c.Get(ctx, key, sb); err != nil {
		return nil, err
	}
	sb.APIVersion, sb.Kind = sbv1.GroupVersion.String(), "SpiralBench"
	attachAttempts(ctx, c, sb)
	return sb, nil
}

// attachAttempts reads the bench's attempt results into its cells, which gives them their
// repeats and the figures derived from them (TX, packet rate, loss, busy shares, spread);
// without them (not allowed to read them, or deleted) the stored figures still tell the
// bench's story, and a warning says what is left out.
func attachAttempts(ctx context.Context, c client.Reader, sb *sbv1.SpiralBench) {
	if err := attempts.Load(ctx, c, sb, attempts.Owned(sb)); err != nil {
		fmt.Fprintf(os.Stderr, "warning: per-repeat detail and the figures derived from it left out: %v\n", err)
	}
}

// benchNames completes a NAME argument with the benches of the namespace.
func (k *kube) benchNames(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 && cmd.Name() != "compare" || len(args) > 1 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	c, ns, err := k.client()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var list sbv1.SpiralBenchList
	if err := c.List(cmd.Context(), &list, client.InNamespace(ns)); err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, sb := range list.Items {
		names = append(names, fmt.Sprintf("%s\t%s %s", sb.Name, sb.Spec.Transport, sb.Status.Phase))
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

func (k *kube) namespaces(ctx context.Context) ([]string, cobra.ShellCompDirective) {
	cs, err := k.clientset()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, ns := range list.Items {
		names = append(names, ns.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}
