// Package buckettest holds an in-memory bucket for unit tests, as net/http/httptest holds a
// server: a stand-in named as one, for code that only uploads, lists and reads objects.
package buckettest

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/spiralbench/spiralbench/pkg/bucket"
)

// MemStore is a bucket in memory (key -> content), for the reconcilers' uploads in unit
// tests; test/integration uploads to a real S3 server.
type MemStore map[string][]byte

func (m MemStore) Upload(_ context.Context, t bucket.Target, prefix string, files map[string][]byte) ([]string, error) {
	var uris []string
	for name, data := range files {
		m[path.Join(prefix, name)] = data
		uris = append(uris, "s3://"+t.Bucket+"/"+path.Join(prefix, name))
	}
	sort.Strings(uris)
	return uris, nil
}

func (m MemStore) List(_ context.Context, _ bucket.Target, prefix string) ([]string, error) {
	var keys []string
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

func (m MemStore) Get(_ context.Context, _ bucket.Target, key string) ([]byte, error) {
	return m[key], nil
}

// Folder is what the store holds under prefix, by name relative to it.
func (m MemStore) Folder(prefix string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range m {
		if rel, ok := strings.CutPrefix(k, prefix); ok {
			out[rel] = v
		}
	}
	return out
}
