package bucket

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

const (
	keyID  = "AKIDTRUSTEXAMPLE"
	secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCY" // '/' and '+' change under URL escaping
)

func TestScrubRemovesCredentialsInEveryFormTheyAreEchoed(t *testing.T) {
	tgt := Target{AccessKeyID: keyID, SecretAccessKey: secret}
	sig := "Signature=9f2c6a0e4b1d8f3a7c5e2b9d6f0a1c4e7b3d5f8a2c6e9b1d4f7a0c3e6b9d2f5a"
	for _, msg := range []string{
		"Credential=" + keyID + "/20261124/us-east-1/s3/aws4_request, SignedHeaders=host, " + sig,
		"X-Amz-Credential=" + keyID + "%2F20261124&X-Amz-Signature=00ff",
		"secret as written: " + secret,
		"secret as a query: " + "wJalrXUtnFEMI%2FK7MDENG%2BbPxRfiCY",
		"secret as a path: " + "wJalrXUtnFEMI%2FK7MDENG+bPxRfiCY",
	} {
		got := scrub(errors.New(msg), tgt).Error()
		for _, leak := range []string{keyID, secret, "wJalrXUtnFEMI", "9f2c6a0e", "00ff"} {
			if strings.Contains(got, leak) {
				t.Errorf("scrub(%q) = %q still holds %q", msg, got, leak)
			}
		}
		if !strings.Contains(got, "<redacted>") {
			t.Errorf("scrub(%q) = %q: want the removed part marked", msg, got)
		}
	}
	if got := scrub(errors.New("dial tcp 127.0.0.1:1: connection refused"), tgt).Error(); got != "dial tcp 127.0.0.1:1: connection refused" {
		t.Errorf("scrub changed a message without credentials: %q", got)
	}
	if got := scrub(errors.New("no credentials here"), Target{}).Error(); got != "no credentials here" {
		t.Errorf("scrub with empty credentials changed the message: %q", got)
	}
}

func TestEndpointAllowed(t *testing.T) {
	allowed := []string{"https://s3.example.com", "http://10.0.0.5:7070"}
	for endpoint, want := range map[string]bool{
		"https://s3.example.com":          true,
		"https://S3.Example.com:443/":     true,
		"https://s3.example.com:9000":     false,
		"http://s3.example.com":           false,
		"http://10.0.0.5:7070":            true,
		"http://10.0.0.5:7071":            false,
		"https://s3.example.com.evil.io":  false,
		"https://user@s3.example.com":     false,
		"ftp://s3.example.com":            false,
		"not a url":                       false,
		"https://evil.io/s3.example.com/": false,
	} {
		if got := EndpointAllowed(endpoint, allowed); got != want {
			t.Errorf("EndpointAllowed(%q) = %v, want %v", endpoint, got, want)
		}
	}
	if !EndpointAllowed("https://anything.example", nil) {
		t.Error("an empty allow-list must allow every endpoint")
	}
}

// A server answering 403 or 500 with a body echoing the signed request (and, planted, the
// secret itself) gets its words into the error, never the credentials.
func TestUploadErrorsFromAnEchoingServerCarryNoCredentials(t *testing.T) {
	for _, status := range []int{http.StatusForbidden, http.StatusInternalServerError} {
		srv := sbtesting.NewEchoingS3(status, secret, keyID)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := MinIO{}.Upload(ctx, Target{Endpoint: srv.URL, Bucket: "results", Region: "us-east-1",
			AccessKeyID: keyID, SecretAccessKey: secret}, "ns/bench/run", map[string][]byte{"results.json": []byte("{}")})
		cancel()
		srv.Close()
		if err == nil {
			t.Fatalf("status %d: upload succeeded", status)
		}
		bodies := strings.Join(srv.Bodies(), "\n")
		if !strings.Contains(bodies, "Credential="+keyID) || !strings.Contains(bodies, secret) {
			t.Fatalf("status %d: the server did not echo the credentials, so this test proves nothing: %s", status, bodies)
		}
		msg := err.Error()
		for _, leak := range []string{keyID, secret, "wJalrXUtnFEMI"} {
			if strings.Contains(msg, leak) {
				t.Errorf("status %d: error holds %q: %s", status, leak, msg)
			}
		}
		if !strings.Contains(msg, "put ns/bench/run/results.json") || !strings.Contains(msg, "request was PUT") {
			t.Errorf("status %d: the error should still say what failed and what the server said: %s", status, msg)
		}
	}
}
