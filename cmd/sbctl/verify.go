package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/runstore"
)

// exitUsage is verify's exit status for a command line it cannot act on (compare's code for a
// worse cell: neither is a pass).
const exitUsage = 2

func newVerify(k *kube) *cobra.Command {
	var keyFile, operatorNS string
	var s3 s3Flags
	cmd := &cobra.Command{
		Use:   "verify DIR|s3://BUCKET/PREFIX/ [--key FILE]",
		Short: "Check that every file of downloaded runs is as the operator signed it (SIGNATURE.json)",
		Long: "Every folder the operator uploads (a bench's run, a fleet's round summary, a node's history record) " +
			"carries SIGNATURE.json: the SHA-256 of each file, signed with the manager's Ed25519 key. verify finds " +
			"each SIGNATURE.json below DIR (or below the s3:// prefix) and checks its signature and every file of its " +
			"folder: an edited, missing or added file fails, and so does a file under no SIGNATURE.json. The public " +
			"key is --key (PEM), else the cluster's ConfigMap spiralbench-results-key in --operator-namespace.\n\n" +
			"Exit codes: 0 every file verifies, 1 something does not (or the key cannot be read), 2 a usage error.",
		Example: "  sbctl get s3://spiralbench-results/default/tcp-sweep/RUN-ID/ -o run/ && sbctl verify run/\n" +
			"  kubectl get configmap spiralbench-results-key -n spiralbench-system -o jsonpath='{.data.ed25519\\.pub}' > results-key.pem\n" +
			"  sbctl verify run/ --key results-key.pem\n" +
			"  sbctl verify s3://spiralbench-results/fleets/lab/gpu-pool/ --s3-endpoint http://10.244.0.1:7070",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return exitCode{exitUsage, fmt.Sprintf("verify takes one DIR or s3:// prefix, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := readTree(cmd.Context(), args[0], s3)
			if err != nil {
				return err
			}
			pub, from, err := publicKey(cmd.Context(), k, keyFile, operatorNS)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "key %s (%s)\n", provenance.KeyID(pub), from)
			return verifyTree(cmd.OutOrStdout(), args[0], files, pub)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitCode{exitUsage, err.Error()} })
	cmd.Flags().StringVar(&keyFile, "key", "", "the results' public key, PEM (default: from the cluster's ConfigMap "+provenance.PublicKeyConfigMap+")")
	cmd.Flags().StringVar(&operatorNS, "operator-namespace", "spiralbench-system", "namespace of the operator, whose ConfigMap "+provenance.PublicKeyConfigMap+" holds the public key")
	s3.addEndpoint(cmd)
	return cmd
}

// publicKey reads the key from file, else from the operator's ConfigMap; it says where from.
func publicKey(ctx context.Context, k *kube, file, ns string) (ed25519.PublicKey, string, error) {
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, "", exitCode{exitUsage, "--key: " + err.Error()}
		}
		pub, err := provenance.ParsePublicPEM(data)
		if err != nil {
			return nil, "", exitCode{exitUsage, fmt.Sprintf("--key %s: %v", file, err)}
		}
		return pub, file, nil
	}
	where := fmt.Sprintf("ConfigMap %s/%s", ns, provenance.PublicKeyConfigMap)
	cs, err := k.clientset()
	if err != nil {
		return nil, "", err
	}
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, provenance.PublicKeyConfigMap, metav1.GetOptions{})
	if err != nil {
		return nil, "", fmt.Errorf("the results' public key: %s: %w (name the operator's namespace with --operator-namespace, or pass --key FILE)", where, err)
	}
	pub, err := provenance.ParsePublicPEM([]byte(cm.Data[provenance.PublicKeyFile]))
	if err != nil {
		return nil, "", fmt.Errorf("the results' public key: %s, key %s: %w", where, provenance.PublicKeyFile, err)
	}
	return pub, where, nil
}

// readTree reads every file below a local folder or an s3:// prefix, by slash-separated path
// relative to it.
func readTree(ctx context.Context, arg string, s3 s3Flags) (map[string][]byte, error) {
	if runstore.IsRef(arg) {
		return readBucket(ctx, arg, s3)
	}
	if fi, err := os.Stat(arg); err != nil || !fi.IsDir() {
		return nil, exitCode{exitUsage, fmt.Sprintf("%s is not a folder (or an s3://bucket/prefix/)", arg)}
	}
	files := map[string][]byte{}
	err := filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(arg, p)
		if err == nil {
			files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		}
		return err
	})
	return files, err
}

func readBucket(ctx context.Context, ref string, s3 s3Flags) (map[string][]byte, error) {
	u, err := url.Parse(ref)
	if err != nil || u.Host == "" {
		return nil, exitCode{exitUsage, fmt.Sprintf("%q is not s3://bucket/prefix/", ref)}
	}
	if s3.endpoint == "" {
		return nil, exitCode{exitUsage, "an s3:// prefix needs --s3-endpoint (or $" + envS3Endpoint + ")"}
	}
	t := s3.target(u.Host)
	prefix := strings.TrimPrefix(u.Path, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/" // a folder, never the objects whose names merely start alike
	}
	keys, err := bucket.MinIO{}.List(ctx, t, prefix)
	if err != nil {
		return nil, s3.explain(err)
	}
	files := map[string][]byte{}
	for _, key := range keys {
		if strings.HasSuffix(key, "/") {
			continue
		}
		if files[strings.TrimPrefix(key, prefix)], err = (bucket.MinIO{}).Get(ctx, t, key); err != nil {
			return nil, s3.explain(err)
		}
	}
	return files, nil
}

// verifyTree checks each signed folder of files (the folders holding a SIGNATURE.json) against
// pub, one line per file, and fails on any file that is not as signed or under no signature.
func verifyTree(out io.Writer, arg string, files map[string][]byte, pub ed25519.PublicKey) error {
	var folders []string // "" is the top; others end in "/"
	for name := range files {
		if path.Base(name) == provenance.SignatureFile {
			folders = append(folders, strings.TrimSuffix(name, provenance.SignatureFile))
		}
	}
	if len(folders) == 0 {
		return exitCode{exitError, fmt.Sprintf("no %s below %s: nothing there is signed (%d files)", provenance.SignatureFile, arg, len(files))}
	}
	// Each file belongs to the deepest signed folder above it.
	sort.Slice(folders, func(i, j int) bool { return len(folders[i]) > len(folders[j]) })
	byFolder := map[string]map[string][]byte{}
	var unsigned []string
	for name, data := range files {
		owner := -1
		for i, f := range folders {
			if strings.HasPrefix(name, f) {
				owner = i
				break
			}
		}
		if owner < 0 {
			unsigned = append(unsigned, name)
			continue
		}
		f := folders[owner]
		if byFolder[f] == nil {
			byFolder[f] = map[string][]byte{}
		}
		byFolder[f][strings.TrimPrefix(name, f)] = data
	}
	sort.Strings(folders)
	sort.Strings(unsigned)
	var checked, bad, badFolders int
	for _, f := range folders {
		r, err := provenance.VerifyFiles(byFolder[f], pub)
		if len(r.Files) == 0 && err != nil { // the manifest itself: its list means nothing
			fmt.Fprintf(out, "FAIL  %s%v\n", f, err)
			bad++
			badFolders++
			continue
		}
		for _, file := range r.Files {
			checked++
			if file.Err != nil {
				fmt.Fprintf(out, "FAIL  %s%v\n", f, file.Err)
				bad++
			} else {
				fmt.Fprintf(out, "OK    %s%s\n", f, file.Name)
			}
		}
		if err != nil {
			badFolders++
		}
	}
	for _, name := range unsigned {
		fmt.Fprintf(out, "FAIL  %s: under no %s\n", name, provenance.SignatureFile)
		bad++
	}
	if bad == 0 {
		fmt.Fprintf(out, "verified: all %d files as signed (signed folders: %d)\n", checked, len(folders))
		return nil
	}
	fmt.Fprintf(out, "FAILED: signed folders not verifying: %d of %d; files under no %s: %d\n",
		badFolders, len(folders), provenance.SignatureFile, len(unsigned))
	return exitCode{code: exitError}
}
