package runstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/minio/minio-go/v7"
)

// Download copies every object of a run's folder (ref as Fetch takes it) into dir, keeping the
// folder's layout (plots/ included), and returns the files written, relative to dir.
func (b Bucket) Download(ctx context.Context, ref, dir string) ([]string, error) {
	c, bucket, prefix, err := b.open(ctx, ref)
	if err != nil {
		return nil, err
	}
	var written []string
	for obj := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return written, fmt.Errorf("list s3://%s/%s: %w", bucket, prefix, obj.Err)
		}
		rel := strings.TrimPrefix(obj.Key, prefix)
		if rel == "" || strings.HasSuffix(rel, "/") || strings.Contains(rel, "..") {
			continue
		}
		dest := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return written, err
		}
		if err := c.FGetObject(ctx, bucket, obj.Key, dest, minio.GetObjectOptions{}); err != nil {
			return written, fmt.Errorf("s3://%s/%s: %w", bucket, obj.Key, err)
		}
		written = append(written, rel)
	}
	if len(written) == 0 {
		return nil, fmt.Errorf("s3://%s/%s holds no files", bucket, prefix)
	}
	return written, nil
}
