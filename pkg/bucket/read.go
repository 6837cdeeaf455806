package bucket

import (
	"context"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"
)

// Store reads back what was uploaded: the fleet's per-node history, for baselines.
type Store interface {
	Uploader
	// List returns the keys under prefix; a missing bucket holds none.
	List(ctx context.Context, t Target, prefix string) ([]string, error)
	// Get returns one object's content.
	Get(ctx context.Context, t Target, key string) ([]byte, error)
}

var _ Store = MinIO{}

// List returns the keys under prefix, recursively.
func (MinIO) List(ctx context.Context, t Target, prefix string) ([]string, error) {
	c, _, err := connect(t)
	if err != nil {
		return nil, err
	}
	var keys []string
	for obj := range c.ListObjects(ctx, t.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			if minio.ToErrorResponse(obj.Err).Code == "NoSuchBucket" {
				return nil, nil
			}
			return nil, scrub(fmt.Errorf("list s3://%s/%s: %w", t.Bucket, prefix, obj.Err), t)
		}
		keys = append(keys, obj.Key)
	}
	return keys, nil
}

// Get returns one object's content.
func (MinIO) Get(ctx context.Context, t Target, key string) ([]byte, error) {
	c, _, err := connect(t)
	if err != nil {
		return nil, err
	}
	obj, err := c.GetObject(ctx, t.Bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, scrub(fmt.Errorf("get s3://%s/%s: %w", t.Bucket, key, err), t)
	}
	defer func() { _ = obj.Close() }()
	data, err := io.ReadAll(obj)
	if err != nil {
		return nil, scrub(fmt.Errorf("get s3://%s/%s: %w", t.Bucket, key, err), t)
	}
	return data, nil
}
