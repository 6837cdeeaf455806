package bucket

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/minio/minio-go/v7"
)

// A refusal stays recognisable after its text was scrubbed of the credentials.
func TestDeniedSeesThroughScrub(t *testing.T) {
	tgt := Target{AccessKeyID: keyID, SecretAccessKey: secret}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{minio.ErrorResponse{StatusCode: http.StatusForbidden, Code: "AccessDenied", Message: "Access Denied."}, true},
		{minio.ErrorResponse{StatusCode: http.StatusForbidden, Code: "SignatureDoesNotMatch"}, true},
		{minio.ErrorResponse{Code: "InvalidAccessKeyId"}, true},
		{minio.ErrorResponse{StatusCode: http.StatusNotFound, Code: "XAdminUserNotFound"}, true},
		{minio.ErrorResponse{StatusCode: http.StatusNotFound, Code: "NoSuchKey"}, false},
		{errors.New("dial tcp 127.0.0.1:1: connection refused"), false},
	} {
		wrapped := fmt.Errorf("get s3://b/k: %w", c.err)
		if got := Denied(wrapped); got != c.want {
			t.Errorf("Denied(%v) = %v, want %v", wrapped, got, c.want)
		}
		if got := Denied(fmt.Errorf("read: %w", scrub(wrapped, tgt))); got != c.want {
			t.Errorf("Denied(scrub(%v)) = %v, want %v", wrapped, got, c.want)
		}
	}
}
