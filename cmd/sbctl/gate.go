package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/provenance"
)

type gateFlags struct {
	file, junit, ctrf, download, keyFile, operatorNS string
	timeout                                          time.Duration
	replace                                          bool
	s3                                               s3Flags
}

func newGate(k *kube) *cobra.Command {
	var f gateFlags
	cmd := &cobra.Command{
		Use:   "gate -f BENCH.yaml [--timeout 30m] [--junit FILE] [--ctrf FILE] [--download DIR]",
		Short: "Apply a bench, follow it, verify its signed results and write test reports: one CI step (exit 0 only when it passed)",
		Long: "gate creates the SpiralBench of the file (an existing one of that name is refused unless --replace deletes " +
			"and recreates it), prints a line per change of progress until it finishes, waits for its results to be " +
			"uploaded, downloads them (into --download, else a temporary folder) and verifies every file against " +
			"SIGNATURE.json as `sbctl verify` does. With --junit and --ctrf it writes JUnit XML and CTRF JSON: a test " +
			"per cell, named by its parameters, a test per acceptance rule with its measured value and threshold, the " +
			"baseline, and the signature check; they are written on every way out, timeouts included.\n\n" +
			"The bucket is read at --s3-endpoint (default $" + envS3Endpoint + ", else the bench's spec.results.endpoint) " +
			"with keys from $" + envAccessKey + " and $" + envSecretKey + ". The public key is --key, else the cluster's " +
			"ConfigMap " + provenance.PublicKeyConfigMap + ".\n\n" +
			"Exit codes: 0 the bench's Passed condition is True and its download verified; 1 it did not pass (a rule " +
			"broke, a cell failed or was invalid) or the download did not verify; 2 no verdict: --timeout ran out, a " +
			"usage error, the cluster or bucket could not be reached, the results were not uploaded, or the bench could " +
			"not run (phase Failed). Documented in docs/ci.md.",
		Example: "  sbctl gate -f bench.yaml -n gpu-ci --timeout 45m --junit reports/junit.xml --ctrf reports/ctrf.json --download run/\n" +
			"  sbctl gate -f bench.yaml --replace --key results-key.pem   # re-run a bench of a fixed name",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runGate(cmd.Context(), cmd.OutOrStdout(), k, f)
		},
	}
	// Flag and argument errors are usage errors: exit 2, as the gate documents.
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitCode{gateNoVerdict, err.Error()} })
	fl := cmd.Flags()
	fl.StringVarP(&f.file, "filename", "f", "", "the SpiralBench to apply (YAML or JSON, one object; - for stdin)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Minute, "give up (exit 2) after this long: the run, the upload and the download")
	fl.BoolVar(&f.replace, "replace", false, "delete a bench of the same name first, and create it again")
	fl.StringVar(&f.junit, "junit", "", "write a JUnit XML report here")
	fl.StringVar(&f.ctrf, "ctrf", "", "write a CTRF JSON report (https://ctrf.io) here")
	fl.StringVar(&f.download, "download", "", "download the run's files into this folder (new or empty) and keep them (default: a temporary folder, removed)")
	fl.StringVar(&f.keyFile, "key", "", "the results' public key, PEM (default: from the cluster's ConfigMap "+provenance.PublicKeyConfigMap+")")
	fl.StringVar(&f.operatorNS, "operator-namespace", "spiralbench-system", "namespace of the operator, whose ConfigMap holds the public key")
	f.s3.addEndpoint(cmd)
	return cmd
}

func runGate(ctx context.Context, out io.Writer, k *kube, f gateFlags) error {
	var r gateResult
	// Reports are written on every way out, with what the gate knew by then, so a pipeline
	// that publishes them always finds them.
	finish := func() error {
		code, why := r.exit()
		if err := writeReports(r, f.junit, f.ctrf, time.Now()); err != nil {
			fmt.Fprintf(out, "gate: writing the reports: %v\n", err)
			code = max(code, gateNoVerdict)
		}
		if code == gatePass {
			fmt.Fprintf(out, "gate: PASS: %s %s\n", benchName(r), why)
			return nil
		}
		fmt.Fprintf(out, "gate: FAIL (exit %d): %s %s\n", code, benchName(r), why)
		return exitCode{code: code} // the line above said why
	}
	fail := func(err error) error {
		r.problem = timedOut(ctx, err)
		return finish()
	}
	if f.file == "" || f.timeout <= 0 {
		return fail(fmt.Errorf("gate needs -f BENCH.yaml and a --timeout above 0 (got %q, %s)", f.file, f.timeout))
	}
	sb, err := readBench(f.file)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", f.file, err))
	}
	if f.download != "" {
		if entries, err := os.ReadDir(f.download); err == nil && len(entries) > 0 {
			return fail(fmt.Errorf("--download %s is not empty: verify would count its other files as unsigned", f.download))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	c, ns, err := k.client()
	if err != nil {
		return fail(err)
	}
	if err := placeBench(sb, ns, k.flags.Namespace != nil && *k.flags.Namespace != ""); err != nil {
		return fail(fmt.Errorf("%s: %w", f.file, err))
	}
	// The key before the bench: a gate that could never verify must not run a 30-minute bench.
	pub, keyFrom, err := publicKey(ctx, k, f.keyFile, f.operatorNS)
	if err != nil {
		return fail(err)
	}
	key, err := apply(ctx, out, c, sb, f.replace)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(out, "gate: created spiralbench %s/%s from %s; following it (timeout %s)\n", key.Namespace, key.Name, f.file, f.timeout)
	done, err := follow(ctx, out, c, key, nil)
	if err != nil {
		r.bench = lastSeen(c, key)
		if ec := (exitCode{}); errors.As(err, &ec) { // follow printed that it was deleted
			err = errors.New("the bench was deleted while followed")
		}
		return fail(err)
	}
	r.bench, r.finished = done, true
	fmt.Fprintln(out)
	if err := printBench(out, done, ""); err != nil {
		return fail(err)
	}
	if done.Status.Phase != sbv1.PhaseCompleted {
		return finish() // phase Failed: nothing was measured to verify
	}
	uploaded, err := awaitUpload(ctx, out, c, key)
	if err != nil {
		return fail(err)
	}
	r.bench = uploaded
	fmt.Fprintf(out, "gate: results key %s (%s)\n", provenance.KeyID(pub), keyFrom)
	var problem error
	r.runDir, r.files, r.verified, r.unsigned, problem = downloadAndVerify(ctx, out, uploaded, f, pub)
	if problem != nil {
		return fail(problem)
	}
	return finish()
}

// readBench reads one SpiralBench, refusing fields the API does not have: a typo in a
// pipeline's bench would otherwise be dropped silently and the gate would judge another bench.
func readBench(file string) (*sbv1.SpiralBench, error) {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, err
	}
	var docs int
	for _, doc := range bytes.Split(data, []byte("\n---")) {
		if len(bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(doc), []byte("---")))) > 0 {
			docs++
		}
	}
	if docs != 1 {
		return nil, fmt.Errorf("holds %d YAML documents; the gate applies exactly one SpiralBench", docs)
	}
	sb := &sbv1.SpiralBench{}
	if err := yaml.UnmarshalStrict(data, sb); err != nil {
		return nil, err
	}
	if sb.Kind != "SpiralBench" || sb.APIVersion != sbv1.GroupVersion.String() {
		return nil, fmt.Errorf("is a %s %s, not a SpiralBench %s", sb.APIVersion, sb.Kind, sbv1.GroupVersion)
	}
	if sb.Name == "" && sb.GenerateName == "" {
		return nil, errors.New("has no metadata.name (or metadata.generateName, for a fresh name each run)")
	}
	sb.ResourceVersion, sb.UID, sb.Status = "", "", sbv1.SpiralBenchStatus{}
	return sb, nil
}

// placeBench puts the bench in the namespace as kubectl apply would: the file's, unless -n
// names another (an error), else -n's or the kubeconfig's.
func placeBench(sb *sbv1.SpiralBench, ns string, flagSet bool) error {
	switch {
	case sb.Namespace == "":
		sb.Namespace = ns
	case flagSet && sb.Namespace != ns:
		return fmt.Errorf("metadata.namespace %s does not match -n %s", sb.Namespace, ns)
	}
	return nil
}

// apply creates the bench; one of that name is refused, or with replace deleted first and
// waited for (its finalizer may upload what it measured).
func apply(ctx context.Context, out io.Writer, c client.Client, sb *sbv1.SpiralBench, replace bool) (client.ObjectKey, error) {
	obj := sb.DeepCopy()
	err := c.Create(ctx, obj)
	if apierrors.IsAlreadyExists(err) && sb.Name != "" {
		key := client.ObjectKeyFromObject(sb)
		old := &sbv1.SpiralBench{}
		if gerr := c.Get(ctx, key, old); gerr != nil {
			return key, gerr
		}
		if !replace {
			return key, fmt.Errorf("spiralbench %s/%s exists (phase %s, run %s): pass --replace to delete and re-run it, or use metadata.generateName for a new bench each run",
				key.Namespace, key.Name, old.Status.Phase, runIDOf(old))
		}
		fmt.Fprintf(out, "gate: deleting spiralbench %s/%s (phase %s) to replace it\n", key.Namespace, key.Name, old.Status.Phase)
		if err := c.Delete(ctx, old, client.Preconditions{UID: &old.UID}); err != nil && !apierrors.IsNotFound(err) {
			return key, err
		}
		for {
			if err := c.Get(ctx, key, &sbv1.SpiralBench{}); apierrors.IsNotFound(err) {
				break
			} else if err != nil {
				return key, err
			}
			select {
			case <-ctx.Done():
				return key, fmt.Errorf("the old %s/%s is still being deleted: %w", key.Namespace, key.Name, ctx.Err())
			case <-time.After(time.Second):
			}
		}
		obj = sb.DeepCopy()
		err = c.Create(ctx, obj)
	}
	return client.ObjectKeyFromObject(obj), err
}

func runIDOf(sb *sbv1.SpiralBench) string {
	if sb.Status.Artifacts != nil && sb.Status.Artifacts.RunID != "" {
		return sb.Status.Artifacts.RunID
	}
	return "-"
}

// awaitUpload waits for ResultsUploaded=True (the operator uploads after completing, and
// retries a failed upload), printing a line per change; a bench without a bucket never
// uploads, and the gate cannot verify it.
func awaitUpload(ctx context.Context, out io.Writer, c client.Client, key client.ObjectKey) (*sbv1.SpiralBench, error) {
	last := ""
	for {
		sb := &sbv1.SpiralBench{}
		if err := c.Get(ctx, key, sb); err != nil {
			return nil, err
		}
		up := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionResultsUploaded)
		if up == nil && meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionResultsReady) == nil {
			return nil, errors.New("the bench has no results bucket (spec.results, or the operator's default): nothing signed to verify")
		}
		if up != nil && up.Status == "True" && sb.Status.Artifacts != nil {
			sb.APIVersion, sb.Kind = sbv1.GroupVersion.String(), "SpiralBench"
			attachAttempts(ctx, c, sb) // the rules' checks judge the derived figures too
			return sb, nil
		}
		line := "waiting for the upload"
		if up != nil {
			line = fmt.Sprintf("%s=%s (%s): %s", up.Type, up.Status, up.Reason, up.Message)
		}
		if line != last {
			fmt.Fprintf(out, "%s  %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("results not uploaded (%s): %w", line, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

// runFolder is the run's folder in the bucket: the deepest folder holding every uploaded object.
func runFolder(a *sbv1.Artifacts) (string, error) {
	if a == nil || len(a.URIs) == 0 {
		return "", errors.New("status.artifacts lists no uploaded objects")
	}
	folder := a.URIs[0][:strings.LastIndex(a.URIs[0], "/")+1]
	for _, u := range a.URIs[1:] {
		for !strings.HasPrefix(u, folder) {
			folder = folder[:strings.LastIndex(strings.TrimSuffix(folder, "/"), "/")+1]
		}
	}
	// s3://bucket/ and a folder below it, at least: never a whole bucket
	if !strings.HasPrefix(folder, "s3://") || strings.Count(folder, "/") < 4 {
		return "", fmt.Errorf("the uploaded objects share no run folder (%s, ...)", a.URIs[0])
	}
	return folder, nil
}

// downloadAndVerify downloads the run's folder as `sbctl get` does and checks it as `sbctl
// verify` does. problem is an error that leaves no verdict on the files (the bucket out of
// reach); unsigned is verify's finding that a file is not as signed. dir is --download's folder.
func downloadAndVerify(ctx context.Context, out io.Writer, sb *sbv1.SpiralBench, f gateFlags, pub ed25519.PublicKey) (dir string, files int, verified bool, unsigned, problem error) {
	folder, err := runFolder(sb.Status.Artifacts)
	if err != nil {
		return "", 0, false, nil, err
	}
	s3 := f.s3
	if s3.endpoint == "" && sb.Spec.Results != nil {
		s3.endpoint, s3.region = sb.Spec.Results.Endpoint, sb.Spec.Results.Region
	}
	if s3.endpoint == "" {
		return "", 0, false, nil, fmt.Errorf("the results are in %s: set --s3-endpoint (or $%s) to read them", folder, envS3Endpoint)
	}
	dir = f.download
	if dir == "" {
		if dir, err = os.MkdirTemp("", "sbctl-gate-"); err != nil {
			return "", 0, false, nil, err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, false, nil, err
	}
	written, err := s3.store().Download(ctx, folder, dir)
	if err != nil {
		return "", 0, false, nil, s3.explain(err)
	}
	fmt.Fprintf(out, "gate: downloaded %d files of %s into %s\n", len(written), folder, dir)
	tree, err := readTree(ctx, dir, s3)
	if err != nil {
		return "", 0, false, nil, err
	}
	// verify's own check and report: one line per file, a summary, an error when any is not as signed.
	if err := verifyTree(out, dir, tree, pub); err != nil {
		if ec := (exitCode{}); errors.As(err, &ec) && ec.msg == "" {
			err = errors.New("a file is not as signed (the lines above name it)")
		}
		return f.download, 0, false, err, nil
	}
	for name := range tree { // the files vouched for, as verify counts them: not the manifests
		if !strings.HasSuffix("/"+name, "/"+provenance.SignatureFile) {
			files++
		}
	}
	return f.download, files, true, nil, nil // a temporary folder is gone by the time reports name it
}

// timedOut names a deadline as the gate's --timeout rather than a bare context error.
func timedOut(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return fmt.Errorf("timed out (--timeout): %w", err)
	}
	return err
}

// lastSeen reads the bench once more after the gate gave up, so the reports show how far it got.
func lastSeen(c client.Client, key client.ObjectKey) *sbv1.SpiralBench {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sb := &sbv1.SpiralBench{}
	if err := c.Get(ctx, key, sb); err != nil {
		return nil
	}
	attachAttempts(ctx, c, sb)
	return sb
}
