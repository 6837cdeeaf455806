package provenance

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Annotation carries an object's mark: base64url(HMAC-SHA256(mark key, identity and content)).
// The identity is the object's type, namespace, name and controller owner's uid; the content
// is what the manager reads from the object to decide (each caller passes its own projection,
// without the fields the apiserver or a kubelet fills in later).
const Annotation = "spiralbench.io/provenance"

// ReasonForeignObject is the reason code of an attempt, a step or a condition that met an
// object in its way that the manager did not create.
const ReasonForeignObject = "ForeignObject"

// ForeignError says an object in the manager's way was not created by it (or was changed since).
type ForeignError struct {
	Kind, Namespace, Name, Why string
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s: %s %s/%s was not created by SpiralBench (%s)", ReasonForeignObject, e.Kind, e.Namespace, e.Name, e.Why)
}

// Mark writes obj's mark over its identity and content. Call it last, after the owner
// reference is set and content is final.
func (k *Key) Mark(obj client.Object, content any) error {
	sum, err := k.sum(obj, content)
	if err != nil {
		return err
	}
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[Annotation] = base64.RawURLEncoding.EncodeToString(sum)
	obj.SetAnnotations(ann)
	return nil
}

// Verify returns nil when obj carries this key's mark over its identity and content, else a
// *ForeignError: made by someone else, or changed after the manager made it.
func (k *Key) Verify(obj client.Object, content any) error {
	foreign := func(why string) error {
		return &ForeignError{Kind: kindOf(obj), Namespace: obj.GetNamespace(), Name: obj.GetName(), Why: why}
	}
	got, ok := obj.GetAnnotations()[Annotation]
	if !ok {
		return foreign("it has no " + Annotation + " mark")
	}
	mac, err := base64.RawURLEncoding.DecodeString(got)
	if err != nil {
		return foreign("its mark is not base64url")
	}
	want, err := k.sum(obj, content)
	if err != nil {
		return err
	}
	if !hmac.Equal(mac, want) {
		return foreign("its mark does not match what it says: made elsewhere or changed since")
	}
	return nil
}

// Trusted is Verify as a boolean, for lookups that skip what they cannot trust.
func (k *Key) Trusted(obj client.Object, content any) bool { return k.Verify(obj, content) == nil }

func (k *Key) sum(obj client.Object, content any) ([]byte, error) {
	body, err := json.Marshal(content)
	if err != nil {
		return nil, fmt.Errorf("provenance of %s %s: %w", kindOf(obj), obj.GetName(), err)
	}
	owner := ""
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		owner = ref.Kind + "/" + ref.Name + "/" + string(ref.UID)
	}
	m := hmac.New(sha256.New, k.mark)
	for _, part := range []string{kindOf(obj), obj.GetNamespace(), obj.GetName(), owner} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	m.Write(body)
	return m.Sum(nil), nil
}

// kindOf is the object's Go type name ("Pod", "SpiralBench"): objects from the cache have no
// TypeMeta.
func kindOf(obj client.Object) string {
	t := reflect.TypeOf(obj)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// Tag is 16 hex digits keyed by the mark key over parts: a name suffix only the manager can
// compute, for objects whose names others must not be able to take first.
func (k *Key) Tag(parts ...string) string {
	m := hmac.New(sha256.New, k.mark)
	m.Write([]byte("name"))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write([]byte(p))
	}
	return hex.EncodeToString(m.Sum(nil)[:8])
}
