package policy

import (
	"fmt"
	"strings"

	"github.com/distribution/reference"
)

// AnyImage is the allow-list entry that allows every image.
const AnyImage = "*"

// Images is the allow-list of data plane images. An entry is a repository
// (ghcr.io/spiralbench/dataplane: any tag or digest of it), an exact reference with a tag or
// digest (only that one), a path prefix ending in "/" (registry.example.com/bench/: every
// repository below it), or AnyImage. Names are compared the way the container runtime
// resolves them, so "spiralbench/dataplane" and "docker.io/spiralbench/dataplane" are one.
type Images struct {
	entries []imageEntry
}

type imageEntry struct {
	text   string // as the admin wrote it, for messages
	any    bool
	prefix string // normalized, ending in "/"
	repo   string // normalized repository, any tag or digest
	exact  string // normalized reference with its tag or digest
}

// NewImages parses an allow-list; it fails on an entry that is not an image reference.
func NewImages(entries ...string) (Images, error) {
	var l Images
	for _, raw := range entries {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		ent := imageEntry{text: e}
		switch {
		case e == AnyImage:
			ent.any = true
		case strings.HasSuffix(e, "/"):
			named, err := reference.ParseNormalizedNamed(strings.TrimSuffix(e, "/"))
			if err != nil || !reference.IsNameOnly(named) {
				return Images{}, fmt.Errorf("allowed image %q: a prefix is a registry path ending in /, such as registry.example.com/bench/", e)
			}
			ent.prefix = named.Name() + "/"
		default:
			named, err := reference.ParseNormalizedNamed(e)
			if err != nil {
				return Images{}, fmt.Errorf("allowed image %q: %v", e, err)
			}
			if reference.IsNameOnly(named) {
				ent.repo = named.Name()
			} else {
				ent.exact = reference.TagNameOnly(named).String()
			}
		}
		l.entries = append(l.entries, ent)
	}
	return l, nil
}

// Repository returns an image's normalized repository (docker.io/library/busybox for
// busybox:1), or "" when it is no valid reference.
func Repository(image string) string {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return ""
	}
	return named.Name()
}

// Allows reports whether image matches an entry. An image that is no valid reference never does.
func (l Images) Allows(image string) bool {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return false
	}
	full := reference.TagNameOnly(named).String()
	for _, e := range l.entries {
		switch {
		case e.any,
			e.prefix != "" && strings.HasPrefix(named.Name(), e.prefix),
			e.repo != "" && named.Name() == e.repo,
			e.exact != "" && full == e.exact:
			return true
		}
	}
	return false
}

// String lists the entries as the admin wrote them.
func (l Images) String() string {
	out := make([]string, len(l.entries))
	for i, e := range l.entries {
		out[i] = e.text
	}
	return strings.Join(out, ", ")
}
