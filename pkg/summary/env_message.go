package summary

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// EnvMessagePrefix opens the relay container's termination message: the environment capture
// in a message of its own, gzip+base64 in the relay's own 4 KiB, so grouped repeats no longer
// squeeze it out of the summary (dataplane/src/output/environment_message.hpp, docs/wire.md).
const EnvMessagePrefix = "spiral-env-v1 "

// maxEnvJSON bounds the decompressed capture: 4 KiB of gzip cannot honestly inflate further.
const maxEnvJSON = 1 << 20

// EnvMessage is what the relay carried: the capture (nil when the data plane captured none),
// what the data plane cut to fit ("" when nothing) and why there is no capture.
type EnvMessage struct {
	Env       *Env   `json:"env"`
	Truncated string `json:"truncated"`
	Note      string `json:"note"`
}

// ParseEnvMessage decodes a relay's termination message.
func ParseEnvMessage(msg string) (EnvMessage, error) {
	var m EnvMessage
	body, ok := strings.CutPrefix(strings.TrimSpace(msg), EnvMessagePrefix)
	if !ok {
		return m, fmt.Errorf("not an environment message: %q", clip(msg, 60))
	}
	packed, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		return m, fmt.Errorf("environment message: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	if err != nil {
		return m, fmt.Errorf("environment message: %w", err)
	}
	text, err := io.ReadAll(io.LimitReader(zr, maxEnvJSON+1))
	if err != nil {
		return m, fmt.Errorf("environment message: %w", err)
	}
	if len(text) > maxEnvJSON {
		return m, fmt.Errorf("environment message inflates past %d bytes", maxEnvJSON)
	}
	if err := json.Unmarshal(text, &m); err != nil {
		return m, fmt.Errorf("environment message: %w", err)
	}
	return m, nil
}

// EncodeEnvMessage is the data plane's encoding, for the tests and the kubelet stand-in.
func EncodeEnvMessage(m EnvMessage) string {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_ = json.NewEncoder(zw).Encode(m)
	_ = zw.Close()
	return EnvMessagePrefix + base64.StdEncoding.EncodeToString(buf.Bytes())
}
