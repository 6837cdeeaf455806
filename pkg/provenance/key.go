// Package provenance proves that an object or a file came from this operator: a keyed mark on
// every object the manager creates and later trusts (cell and check pods, a fleet's benches,
// attempt and node results), and an Ed25519 signature over the files a bench or fleet uploads.
// Both keys derive from one secret seed that only the manager reads; an editor of a namespace
// can copy names, labels and owner references, but not a mark over what the object says.
package provenance

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	// SecretName holds the seed (key SeedKey) in the manager's namespace. The manager creates it
	// on its first start; deleting it makes every object and file marked before untrusted.
	SecretName = "spiralbench-provenance"
	SeedKey    = "seed"
	// PublicKeyConfigMap publishes the results' public key (key PublicKeyFile, PEM) in the
	// manager's namespace, for gates that verify a download (`sbctl verify`).
	PublicKeyConfigMap = "spiralbench-results-key"
	PublicKeyFile      = "ed25519.pub"
)

// Key is the manager's secret: the mark key for objects and the signing key for files.
type Key struct {
	mark   []byte
	signer ed25519.PrivateKey
	// verified are the stored object versions whose marks checked out (verified.go).
	verified verifiedSet
}

// NewKey derives both keys from a seed of at least 32 bytes.
func NewKey(seed []byte) (*Key, error) {
	if len(seed) < 32 {
		return nil, fmt.Errorf("provenance seed has %d bytes, want at least 32", len(seed))
	}
	sign := derive(seed, "spiralbench results signing key")
	return &Key{mark: derive(seed, "spiralbench object mark"), signer: ed25519.NewKeyFromSeed(sign)}, nil
}

// RandomKey is a fresh key, for tests and for a manager's first start.
func RandomKey() *Key {
	k, err := NewKey(randomSeed())
	if err != nil {
		panic(err)
	}
	return k
}

func randomSeed() []byte {
	seed := make([]byte, 32)
	if _, err := rand.Read(seed); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return seed
}

func derive(seed []byte, purpose string) []byte {
	m := hmac.New(sha256.New, seed)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// Public is the signing key's public half.
func (k *Key) Public() ed25519.PublicKey { return k.signer.Public().(ed25519.PublicKey) }

// KeyID names a public key in signatures: the first 8 bytes of its SHA-256, in hex.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// PublicPEM is pub as a PEM "PUBLIC KEY" block (PKIX), as openssl writes it.
func PublicPEM(pub ed25519.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		panic(err) // an ed25519.PublicKey always marshals
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// ParsePublicPEM reads a key PublicPEM wrote.
func ParsePublicPEM(data []byte) (ed25519.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, errors.New("not a PEM PUBLIC KEY block")
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("public key is %T, want Ed25519", k)
	}
	return pub, nil
}

// LoadOrCreate reads the seed from the Secret SecretName in ns, creating the Secret with a new
// random seed when there is none, and publishes the public key in the ConfigMap
// PublicKeyConfigMap. Two managers starting at once agree: the second create loses and reads.
func LoadOrCreate(ctx context.Context, c client.Client, ns string) (*Key, error) {
	var s corev1.Secret
	err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: SecretName}, &s)
	if apierrors.IsNotFound(err) {
		s = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: SecretName},
			Type: corev1.SecretTypeOpaque, Data: map[string][]byte{SeedKey: randomSeed()}}
		if err = c.Create(ctx, &s); apierrors.IsAlreadyExists(err) {
			err = c.Get(ctx, client.ObjectKey{Namespace: ns, Name: SecretName}, &s)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("provenance key: Secret %s/%s: %w", ns, SecretName, err)
	}
	k, err := NewKey(s.Data[SeedKey])
	if err != nil {
		return nil, fmt.Errorf("provenance key: Secret %s/%s: %w", ns, SecretName, err)
	}
	return k, publish(ctx, c, ns, k.Public())
}

func publish(ctx context.Context, c client.Client, ns string, pub ed25519.PublicKey) error {
	want := map[string]string{PublicKeyFile: string(PublicPEM(pub)), "keyID": KeyID(pub)}
	var cm corev1.ConfigMap
	err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: PublicKeyConfigMap}, &cm)
	switch {
	case apierrors.IsNotFound(err):
		cm = corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: PublicKeyConfigMap}, Data: want}
		err = c.Create(ctx, &cm)
	case err == nil && (cm.Data[PublicKeyFile] != want[PublicKeyFile] || cm.Data["keyID"] != want["keyID"]):
		cm.Data = want
		err = c.Update(ctx, &cm)
	}
	if err != nil {
		return fmt.Errorf("publish the results' public key in ConfigMap %s/%s: %w", ns, PublicKeyConfigMap, err)
	}
	return nil
}
