package summary

import (
	"encoding/base64"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestEnvMessageRoundTripFillsStatus(t *testing.T) {
	in := EnvMessage{Env: &Env{DataplaneRevision: "abc123", CPUModel: "Neoverse-V2",
		NICs: []EnvNIC{{Netdev: "enp1s0f0np0", Driver: "mlx5_core", SpeedMbps: 200000, MTU: 9000}}}}
	msg := EncodeEnvMessage(in)
	if !strings.HasPrefix(msg, EnvMessagePrefix) {
		t.Fatalf("message %q lacks its prefix", msg)
	}
	out, err := ParseEnvMessage(msg + "\n")
	if err != nil {
		t.Fatal(err)
	}
	var env sbv1.Environment
	out.Env.Fill(&env)
	if env.CPUModel != "Neoverse-V2" || len(env.NICs) != 1 || env.NICs[0].SpeedMbps != 200000 || env.NICs[0].MTU != 9000 {
		t.Fatalf("status from the message: %+v", env.EnvironmentDetail)
	}
	if out.Truncated != "" {
		t.Fatalf("nothing was cut, got %q", out.Truncated)
	}
}

// The data plane cuts a capture too big even for the message and says what it kept; the note
// must survive the trip.
func TestEnvMessageKeepsWhatWasCut(t *testing.T) {
	cut := "kept 4 of 16 GPUs, 8 of 8 NICs to fit 4096 bytes"
	out, err := ParseEnvMessage(EncodeEnvMessage(EnvMessage{Env: &Env{CPUModel: "x"}, Truncated: cut}))
	if err != nil || out.Truncated != cut || out.Env == nil {
		t.Fatalf("got %+v, %v", out, err)
	}
	none, err := ParseEnvMessage(EncodeEnvMessage(EnvMessage{Note: "not captured: exit code 2"}))
	if err != nil || none.Env != nil || none.Note != "not captured: exit code 2" {
		t.Fatalf("no capture: %+v, %v", none, err)
	}
}

// What is not a whole message is an error, never an empty capture: a summary line, a message
// the kubelet cut at 4 KiB, plain JSON without the encoding, a gzip bomb.
func TestEnvMessageRefusesWhatIsNotOne(t *testing.T) {
	whole := EncodeEnvMessage(EnvMessage{Env: &Env{CPUModel: strings.Repeat("x", 3000)}})
	bomb := EnvMessagePrefix + base64.StdEncoding.EncodeToString(gzipOf(`{"note":"`+strings.Repeat("a", maxEnvJSON+10)+`"}`))
	for name, msg := range map[string]string{
		"summary":   `{"v":1,"transport":"tcp"}`,
		"cut":       whole[:len(whole)/2],
		"plain":     EnvMessagePrefix + `{"env":{}}`,
		"not gzip":  EnvMessagePrefix + base64.StdEncoding.EncodeToString([]byte(`{"env":{}}`)),
		"gzip bomb": bomb,
	} {
		if _, err := ParseEnvMessage(msg); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func gzipOf(s string) []byte {
	msg := EncodeEnvMessage(EnvMessage{Note: s})
	b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(msg, EnvMessagePrefix))
	return b
}
