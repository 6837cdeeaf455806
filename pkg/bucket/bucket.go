// Package bucket uploads result files to an S3-compatible bucket with minio-go.
package bucket

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Target is where and how to upload. Credentials come from the bench's Secret and must never
// appear in an error message.
type Target struct {
	Endpoint              string // http(s)://host[:port]
	Bucket                string
	Region                string
	AccessKeyID           string
	SecretAccessKey       string
	InsecureSkipTLSVerify bool
	CABundlePEM           []byte
}

// Uploader puts files into a bucket; the controller depends on this, tests may replace it.
type Uploader interface {
	Upload(ctx context.Context, t Target, prefix string, files map[string][]byte) ([]string, error)
}

// MinIO uploads with minio-go.
type MinIO struct{}

// Upload creates the bucket when missing and puts every file under prefix. It returns the
// s3:// URIs of the objects.
func (MinIO) Upload(ctx context.Context, t Target, prefix string, files map[string][]byte) ([]string, error) {
	c, u, err := connect(t)
	if err != nil {
		return nil, err
	}
	exists, err := c.BucketExists(ctx, t.Bucket)
	if err != nil {
		return nil, scrub(fmt.Errorf("reach bucket %s at %s: %w", t.Bucket, u.Host, err), t)
	}
	if !exists {
		if err := c.MakeBucket(ctx, t.Bucket, minio.MakeBucketOptions{Region: t.Region}); err != nil {
			return nil, scrub(fmt.Errorf("create bucket %s: %w", t.Bucket, err), t)
		}
	}
	var uris []string
	for _, name := range sortedNames(files) {
		key := path.Join(prefix, name)
		data := files[name]
		if _, err := c.PutObject(ctx, t.Bucket, key, bytes.NewReader(data), int64(len(data)),
			minio.PutObjectOptions{ContentType: contentType(name)}); err != nil {
			return nil, scrub(fmt.Errorf("put %s: %w", key, err), t)
		}
		uris = append(uris, "s3://"+t.Bucket+"/"+key)
	}
	return uris, nil
}

// connect makes a minio-go client for the target.
func connect(t Target) (*minio.Client, *url.URL, error) {
	u, err := url.Parse(t.Endpoint)
	if err != nil || u.Host == "" {
		return nil, nil, fmt.Errorf("endpoint %q is not a URL", t.Endpoint)
	}
	transport, err := httpTransport(u.Scheme == "https", t)
	if err != nil {
		return nil, nil, err
	}
	c, err := minio.New(u.Host, &minio.Options{
		Creds:     credentials.NewStaticV4(t.AccessKeyID, t.SecretAccessKey, ""),
		Secure:    u.Scheme == "https",
		Region:    t.Region,
		Transport: transport,
		// The controller retries a failed upload with its own backoff; minio-go's ten retries
		// with backoff would hold a reconcile for most of a minute on a server answering 500.
		MaxRetries: 2,
	})
	if err != nil {
		return nil, nil, scrub(err, t)
	}
	return c, u, nil
}

func httpTransport(secure bool, t Target) (http.RoundTripper, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if !secure {
		return tr, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.InsecureSkipTLSVerify} // #nosec G402 -- only when the spec asks
	if len(t.CABundlePEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(t.CABundlePEM) {
			return nil, errors.New("caBundleRef holds no PEM certificate")
		}
		cfg.RootCAs = pool
	}
	tr.TLSClientConfig = cfg
	return tr, nil
}

// signature matches a SigV4 signature however a server echoes it (Authorization header or
// presigned query): one request's signature is replayable for minutes, so it is scrubbed too.
var signature = regexp.MustCompile(`(?i)(signature=)[0-9a-f]+`)

// scrub removes credentials from an error message, whatever the library or a server echoing
// the request put in it: the secret key and key id as written and URL-escaped, and signatures.
func scrub(err error, t Target) error {
	msg := err.Error()
	for _, secret := range []string{t.SecretAccessKey, t.AccessKeyID} {
		if secret == "" {
			continue
		}
		for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
			msg = strings.ReplaceAll(msg, form, "<redacted>")
		}
	}
	msg = signature.ReplaceAllString(msg, "${1}<redacted>")
	return &scrubbedError{msg: msg, denied: Denied(err)}
}

// EndpointAllowed says whether endpoint is one of allowed (scheme://host[:port], the default
// port of the scheme when none is written); an empty list allows every endpoint.
func EndpointAllowed(endpoint string, allowed []string) bool {
	if len(allowed) == 0 {
		return true
	}
	want, ok := origin(endpoint)
	if !ok {
		return false
	}
	for _, a := range allowed {
		if o, ok := origin(a); ok && o == want {
			return true
		}
	}
	return false
}

// origin is scheme://host:port of an http(s) URL, lower-cased, with the scheme's default port.
func origin(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return "", false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port, true
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".csv":
		return "text/csv"
	case ".json":
		return "application/json"
	case ".jsonl":
		return "application/x-ndjson"
	case ".html":
		return "text/html; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	}
	return "application/octet-stream"
}

func sortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
