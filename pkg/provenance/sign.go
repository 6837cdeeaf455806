package provenance

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// SignatureFile is the manifest Sign adds to a folder of files: it lists every other file of
// the folder with its SHA-256, and signs the list.
const SignatureFile = "SIGNATURE.json"

// Manifest is SIGNATURE.json. The signature covers the manifest's canonical bytes: its JSON
// without the signature field, compact, keys in this order, file names sorted, no HTML
// escaping (what `jq -cj 'del(.signature)' SIGNATURE.json` prints, so a gate without sbctl can
// check it with openssl).
type Manifest struct {
	Version   int               `json:"version"`
	KeyID     string            `json:"keyID"`
	Algorithm string            `json:"algorithm"`
	Files     map[string]string `json:"files"` // name (slash-separated, relative) -> "sha256:<hex>"
	Signature string            `json:"signature,omitempty"`
}

const (
	manifestVersion = 1
	algorithm       = "ed25519"
)

// Sign adds SignatureFile to files, over every other file of the map. A SignatureFile already
// there is replaced. A nil key fails: nothing is uploaded unsigned.
func (k *Key) Sign(files map[string][]byte) error {
	if k == nil {
		return errors.New("no provenance key to sign the files with: refusing to upload them unsigned")
	}
	m := Manifest{Version: manifestVersion, KeyID: KeyID(k.Public()), Algorithm: algorithm, Files: map[string]string{}}
	for name, data := range files {
		if name != SignatureFile {
			m.Files[name] = digest(data)
		}
	}
	body, err := m.canonical()
	if err != nil {
		return err
	}
	m.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(k.signer, body))
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	files[SignatureFile] = append(out, '\n')
	return nil
}

// canonical is what the signature covers.
func (m Manifest) canonical() ([]byte, error) {
	m.Signature = ""
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Report is what VerifyFiles found.
type Report struct {
	// KeyID is the key the manifest names (whether or not it verified).
	KeyID string
	// Files is one result per file listed or present, by name; empty when the manifest
	// itself did not verify (its list means nothing then).
	Files []FileResult
}

// FileResult is one file's check: Err is nil when the file is as signed.
type FileResult struct {
	Name string
	Err  error
}

// VerifyFiles checks files (a folder's, by relative slash-separated name) against its
// SignatureFile and pub: the manifest's signature and key, then each listed file's hash, and
// that no file is there unlisted. The error names every offending file.
func VerifyFiles(files map[string][]byte, pub ed25519.PublicKey) (Report, error) {
	var r Report
	m, err := readManifest(files, pub)
	r.KeyID = m.KeyID
	if err != nil {
		return r, fmt.Errorf("%s: %w", SignatureFile, err)
	}
	names := make([]string, 0, len(files)+len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	for name := range files {
		if _, listed := m.Files[name]; !listed && name != SignatureFile {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		data, present := files[name]
		want, listed := m.Files[name]
		var ferr error
		switch {
		case !listed:
			ferr = fmt.Errorf("%s: not in the signed manifest", name)
		case !present:
			ferr = fmt.Errorf("%s: listed but missing", name)
		case digest(data) != want:
			ferr = fmt.Errorf("%s: sha256 differs from the signed manifest", name)
		}
		r.Files = append(r.Files, FileResult{Name: name, Err: ferr})
		if ferr != nil {
			errs = append(errs, ferr)
		}
	}
	return r, errors.Join(errs...)
}

// readManifest parses the manifest and checks its signature with pub.
func readManifest(files map[string][]byte, pub ed25519.PublicKey) (Manifest, error) {
	var m Manifest
	data, ok := files[SignatureFile]
	if !ok {
		return m, errors.New("missing: the files are not signed")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a field the signature does not cover is an edit
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("not a signature manifest: %w", err)
	}
	if m.Version != manifestVersion || m.Algorithm != algorithm {
		return m, fmt.Errorf("version %d, algorithm %q: want version %d, %s", m.Version, m.Algorithm, manifestVersion, algorithm)
	}
	if want := KeyID(pub); m.KeyID != want {
		return m, fmt.Errorf("signed by key %s, not by the key given (%s): verify with the public key of the manager that uploaded it", m.KeyID, want)
	}
	sig, err := base64.StdEncoding.DecodeString(m.Signature)
	if err != nil {
		return m, fmt.Errorf("signature is not base64: %w", err)
	}
	body, err := m.canonical()
	if err != nil {
		return m, err
	}
	if !ed25519.Verify(pub, body, sig) {
		return m, fmt.Errorf("signature does not verify with key %s: the manifest was changed after signing", m.KeyID)
	}
	return m, nil
}
