package provenance

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

func signedRun(t *testing.T, k *Key) map[string][]byte {
	t.Helper()
	files := map[string][]byte{
		"runs.csv":         []byte("cell,repeat,gbps\n0,0,94.1\n"),
		"verdict.json":     []byte(`{"passed":true}`),
		"plots/gbps.svg":   []byte("<svg/>"),
		"environment.json": []byte(`{}`),
	}
	if err := k.Sign(files); err != nil {
		t.Fatal(err)
	}
	return files
}

func TestSignThenVerify(t *testing.T) {
	k := RandomKey()
	files := signedRun(t, k)
	var m Manifest
	if err := json.Unmarshal(files[SignatureFile], &m); err != nil {
		t.Fatal(err)
	}
	if m.Version != 1 || m.Algorithm != "ed25519" || m.KeyID != KeyID(k.Public()) || len(m.Files) != 4 ||
		!strings.HasPrefix(m.Files["plots/gbps.svg"], "sha256:") || m.Signature == "" {
		t.Fatalf("manifest %+v", m)
	}
	r, err := VerifyFiles(files, k.Public())
	if err != nil || r.KeyID != m.KeyID || len(r.Files) != 4 {
		t.Fatalf("%v %+v", err, r)
	}
	for _, f := range r.Files {
		if f.Err != nil {
			t.Errorf("%s: %v", f.Name, f.Err)
		}
	}
	// Signing again replaces the manifest rather than listing it.
	if err := k.Sign(files); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyFiles(files, k.Public()); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyNamesWhatChanged(t *testing.T) {
	k := RandomKey()
	for _, tc := range []struct {
		name, want string
		change     func(map[string][]byte)
	}{
		{"an edited runs.csv", "runs.csv: sha256 differs from the signed manifest", func(f map[string][]byte) {
			f["runs.csv"] = bytes.Replace(f["runs.csv"], []byte("94.1"), []byte("99.9"), 1)
		}},
		{"a removed file", "verdict.json: listed but missing", func(f map[string][]byte) { delete(f, "verdict.json") }},
		{"an added file", "extra.csv: not in the signed manifest", func(f map[string][]byte) { f["extra.csv"] = []byte("x") }},
		{"no manifest", "SIGNATURE.json: missing", func(f map[string][]byte) { delete(f, SignatureFile) }},
		{"a manifest edited", "SIGNATURE.json: signature does not verify", func(f map[string][]byte) {
			// Re-list runs.csv's new hash without re-signing: the signature no longer covers it.
			var m Manifest
			_ = json.Unmarshal(f[SignatureFile], &m)
			f["runs.csv"] = []byte("forged\n")
			m.Files["runs.csv"] = digest(f["runs.csv"])
			f[SignatureFile], _ = json.Marshal(m)
		}},
		{"a field added to the manifest", "SIGNATURE.json: not a signature manifest", func(f map[string][]byte) {
			f[SignatureFile] = bytes.Replace(f[SignatureFile], []byte(`"version"`), []byte(`"note":"x","version"`), 1)
		}},
		{"a signature by another key", "SIGNATURE.json: signed by key", func(f map[string][]byte) {
			other := maps.Clone(f)
			if err := RandomKey().Sign(other); err != nil {
				t.Fatal(err)
			}
			f[SignatureFile] = other[SignatureFile]
		}},
		{"another key's signature under this key's id", "SIGNATURE.json: signature does not verify", func(f map[string][]byte) {
			other := maps.Clone(f)
			if err := RandomKey().Sign(other); err != nil {
				t.Fatal(err)
			}
			var m Manifest
			_ = json.Unmarshal(other[SignatureFile], &m)
			m.KeyID = KeyID(k.Public())
			f[SignatureFile], _ = json.Marshal(m)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := signedRun(t, k)
			tc.change(files)
			_, err := VerifyFiles(files, k.Public())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

func TestVerifyListsEachOffendingFile(t *testing.T) {
	k := RandomKey()
	files := signedRun(t, k)
	files["runs.csv"] = []byte("edited\n")
	delete(files, "verdict.json")
	r, err := VerifyFiles(files, k.Public())
	if err == nil || !strings.Contains(err.Error(), "runs.csv:") || !strings.Contains(err.Error(), "verdict.json:") {
		t.Fatalf("%v", err)
	}
	bad := map[string]bool{}
	for _, f := range r.Files {
		bad[f.Name] = f.Err != nil
	}
	if len(bad) != 4 || !bad["runs.csv"] || !bad["verdict.json"] || bad["environment.json"] || bad["plots/gbps.svg"] {
		t.Fatalf("per-file results %v", bad)
	}
}

func TestSignWithoutAKeyFails(t *testing.T) {
	var k *Key
	if err := k.Sign(map[string][]byte{"runs.csv": nil}); err == nil || !strings.Contains(err.Error(), "unsigned") {
		t.Fatalf("a nil key signed: %v", err)
	}
}
