package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/runstore"
)

// The environment sbctl reads the results bucket from; hack/stack-env.sh writes these names
// into build/stack.env, so `source build/stack.env` is all a user of the demo needs.
const (
	envS3Endpoint = "SBCTL_S3_ENDPOINT"
	envAccessKey  = "AWS_ACCESS_KEY_ID"
	envSecretKey  = "AWS_SECRET_ACCESS_KEY"
)

// s3Flags say where runs are read from; the keys come from the environment, never from flags
// (they would show in the shell's history and in ps).
type s3Flags struct {
	endpoint, bucket, region string
	flags                    *pflag.FlagSet // to tell --s3-endpoint from $SBCTL_S3_ENDPOINT
}

func (f *s3Flags) add(cmd *cobra.Command) {
	f.addEndpoint(cmd)
	cmd.Flags().StringVar(&f.bucket, "s3-bucket", "", "read run ids from this bucket instead of benches from the cluster")
}

// addEndpoint adds the flags every bucket reader has (verify reads prefixes, never run ids).
func (f *s3Flags) addEndpoint(cmd *cobra.Command) {
	f.flags = cmd.Flags()
	cmd.Flags().StringVar(&f.endpoint, "s3-endpoint", os.Getenv(envS3Endpoint), "results bucket endpoint, http(s)://host:port (default $"+envS3Endpoint+"); keys from $"+envAccessKey+" and $"+envSecretKey)
	cmd.Flags().StringVar(&f.region, "s3-region", "us-east-1", "bucket region")
}

func (f s3Flags) store() runstore.Bucket {
	return runstore.Bucket{Endpoint: f.endpoint, Name: f.bucket, Region: f.region,
		AccessKeyID: os.Getenv(envAccessKey), SecretKey: os.Getenv(envSecretKey)}
}

func (f s3Flags) target(bucketName string) bucket.Target {
	return bucket.Target{Endpoint: f.endpoint, Bucket: bucketName, Region: f.region,
		AccessKeyID: os.Getenv(envAccessKey), SecretAccessKey: os.Getenv(envSecretKey)}
}

// explain adds to a bucket's refusal of the key (bucket.Denied: a 403) which key sbctl sent, where the key and the
// endpoint came from and what to set: a bare "Access Denied" does not say that the key was
// never set, or set under another name. The secret is never printed. Other errors pass as
// they are.
func (f s3Flags) explain(err error) error {
	if err == nil || !bucket.Denied(err) {
		return err
	}
	endpointFrom := "--s3-endpoint"
	if f.flags == nil || !f.flags.Changed("s3-endpoint") {
		endpointFrom = "$" + envS3Endpoint
	}
	key, secret := os.Getenv(envAccessKey), os.Getenv(envSecretKey)
	var sent string
	switch {
	case key == "":
		sent = fmt.Sprintf("an unsigned request ($%s is not set)", envAccessKey)
	case secret == "":
		sent = fmt.Sprintf("access key id %q (from $%s) with no secret ($%s is not set)", key, envAccessKey, envSecretKey)
	default:
		sent = fmt.Sprintf("access key id %q (from $%s, secret from $%s)", key, envAccessKey, envSecretKey)
	}
	hint := fmt.Sprintf("set $%s and $%s to a key of this bucket (after make demo: source build/stack.env)", envAccessKey, envSecretKey)
	// hack/stack.sh's own names, which an older build/stack.env exports alone.
	if old := os.Getenv("S3_ACCESS_KEY"); old != "" && old != key {
		hint = fmt.Sprintf("$S3_ACCESS_KEY is set, but sbctl reads $%s: export %s=$S3_ACCESS_KEY %s=$S3_SECRET_KEY, or source a build/stack.env written by a current hack/stack.sh",
			envAccessKey, envAccessKey, envSecretKey)
	}
	return fmt.Errorf("%w\nthe bucket at %s (from %s) refused %s; %s", err, f.endpoint, endpointFrom, sent, hint)
}
