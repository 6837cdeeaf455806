package bucket

import (
	"errors"
	"net/http"

	"github.com/minio/minio-go/v7"
)

// deniedCodes are the S3 error codes of a refused key: unknown, wrong secret, or no rights.
// versitygw (the local stack's server) answers an unknown key with XAdminUserNotFound, a 404.
var deniedCodes = map[string]bool{"AccessDenied": true, "InvalidAccessKeyId": true, "SignatureDoesNotMatch": true,
	"XAdminUserNotFound": true}

// Denied says whether the bucket refused the request's credentials or their rights (HTTP 403),
// so a caller can say which key it sent. It sees through this package's scrubbed errors, whose
// text no longer holds the server's reply as a value.
func Denied(err error) bool {
	var s *scrubbedError
	if errors.As(err, &s) {
		return s.denied
	}
	var resp minio.ErrorResponse
	return errors.As(err, &resp) && (resp.StatusCode == http.StatusForbidden || deniedCodes[resp.Code])
}

// scrubbedError is an error whose text had the credentials removed; it keeps only whether the
// server refused them, never the original error (which may hold them).
type scrubbedError struct {
	msg    string
	denied bool
}

func (e *scrubbedError) Error() string { return e.msg }
