package testing

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
)

// EchoingS3 is a real HTTP server that answers like a hostile or broken S3 endpoint: HEAD (does
// the bucket exist?) gets 200, every other request gets Status with an S3 error XML body whose
// Message echoes the whole request (method, URL, every header, Authorization included) plus
// the strings in Plant, as a server that logged a secret elsewhere might. It is not an S3
// implementation: it exists to show what reaches status, events and logs when a server echoes.
type EchoingS3 struct {
	*httptest.Server
	Status int
	Plant  []string

	mu     sync.Mutex
	bodies []string
}

// NewEchoingS3 starts the server; Close it when done.
func NewEchoingS3(status int, plant ...string) *EchoingS3 {
	s := &EchoingS3{Status: status, Plant: plant}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Bodies are the error bodies sent so far, to prove the echo carried the credentials.
func (s *EchoingS3) Bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

type s3Error struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	Resource  string   `xml:"Resource"`
	RequestID string   `xml:"RequestId"`
}

func (s *EchoingS3) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	var echo strings.Builder
	fmt.Fprintf(&echo, "%s %s;", r.Method, r.URL.String())
	names := make([]string, 0, len(r.Header))
	for n := range r.Header {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&echo, " %s: %s;", n, strings.Join(r.Header[n], ","))
	}
	for _, p := range s.Plant {
		fmt.Fprintf(&echo, " planted: %s;", p)
	}
	code := map[int]string{http.StatusForbidden: "AccessDenied", http.StatusInternalServerError: "InternalError"}[s.Status]
	if code == "" {
		code = "Unknown"
	}
	body, _ := xml.Marshal(s3Error{Code: code, Message: "request was " + echo.String(), Resource: r.URL.Path, RequestID: "echo-1"})
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(s.Status)
	_, _ = w.Write(append([]byte(xml.Header), body...))
}
