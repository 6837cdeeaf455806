package runstore

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Bucket is where runs are read from. Credentials come from the caller's environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) and never appear in errors.
type Bucket struct {
	Endpoint, Name, Region string
	AccessKeyID, SecretKey string
}

// IsRef says whether arg names a run in a bucket rather than a SpiralBench: an s3:// URI.
func IsRef(arg string) bool { return strings.HasPrefix(arg, "s3://") }

// Fetch reads a run: ref is s3://bucket/<prefix>/<namespace>/<name>/<run-id>/, or a bare run id
// looked up in the bucket (it must name exactly one folder).
func (b Bucket) Fetch(ctx context.Context, ref string) (*sbv1.SpiralBench, error) {
	c, bucket, prefix, err := b.open(ctx, ref)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, f := range append(Files, OptionalFiles...) {
		obj, err := c.GetObject(ctx, bucket, path.Join(prefix, f), minio.GetObjectOptions{})
		var data []byte
		if err == nil {
			data, err = io.ReadAll(obj)
			obj.Close()
		}
		if err != nil && slices.Contains(OptionalFiles, f) && minio.ToErrorResponse(err).Code == "NoSuchKey" {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("s3://%s/%s%s: %w", bucket, prefix, f, err)
		}
		files[f] = data
	}
	return FromFiles(files)
}

// open connects and locates ref's folder.
func (b Bucket) open(ctx context.Context, ref string) (*minio.Client, string, string, error) {
	c, err := b.client()
	if err != nil {
		return nil, "", "", err
	}
	bucket, prefix, err := b.locate(ctx, c, ref)
	return c, bucket, prefix, err
}

// locate turns ref (an s3:// folder, or a run id looked up in b's bucket) into bucket and prefix.
func (b Bucket) locate(ctx context.Context, c *minio.Client, ref string) (bucket, prefix string, err error) {
	if IsRef(ref) {
		u, err := url.Parse(ref)
		if err != nil || u.Host == "" {
			return "", "", fmt.Errorf("%q is not s3://bucket/path/to/run/", ref)
		}
		return u.Host, strings.Trim(u.Path, "/") + "/", nil
	}
	if b.Name == "" {
		return "", "", fmt.Errorf("run id %q needs --s3-bucket (or pass s3://bucket/path/to/run/)", ref)
	}
	prefix, err = find(ctx, c, b.Name, ref)
	return b.Name, prefix, err
}

// find returns the one folder whose name is runID.
func find(ctx context.Context, c *minio.Client, bucket, runID string) (string, error) {
	var found []string
	for obj := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			return "", fmt.Errorf("list s3://%s: %w", bucket, obj.Err)
		}
		if strings.HasSuffix(obj.Key, "/"+runID+"/results.jsonl") {
			found = append(found, strings.TrimSuffix(obj.Key, "results.jsonl"))
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no run %q in s3://%s", runID, bucket)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("run id %q names %d folders in s3://%s (%s): pass the s3:// URI", runID, len(found), bucket, strings.Join(found, ", "))
}

func (b Bucket) client() (*minio.Client, error) {
	u, err := url.Parse(b.Endpoint)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("--s3-endpoint %q is not a URL (http(s)://host:port)", b.Endpoint)
	}
	region := b.Region
	if region == "" {
		region = "us-east-1"
	}
	return minio.New(u.Host, &minio.Options{Creds: credentials.NewStaticV4(b.AccessKeyID, b.SecretKey, ""),
		Secure: u.Scheme == "https", Region: region})
}
