// Command images builds container image tarballs without a Docker engine or a registry, with
// go-containerregistry. The output is a `docker save` style tarball that
// `ctr -n k8s.io images import` loads into a cluster's containerd.
//
//	images -tag spiralbench/manager:dev -o manager.tar -nonroot -add bin/manager:/manager -entrypoint /manager
//	images -tag spiralbench/dataplane:dev -o dataplane.tar -rootfs ROOTFS -add build/dataplane/spiral-dataplane:/usr/local/bin/spiral-dataplane
//
// Layers, in order: the -rootfs directory (owners kept), the -nonroot base (passwd, group, CA
// certificates, /tmp), then every -add in one layer (root-owned, modes kept).
package main

import (
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// nonrootUID is distroless' "nonroot" user; the manager's Dockerfile and Deployment use it too.
const nonrootUID = 65532

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

type options struct {
	tag, out, rootfs, caCerts, user, workdir string
	nonroot                                  bool
	adds, env, labels                        list
	entrypoint, cmd                          string
}

func main() {
	var o options
	flag.StringVar(&o.tag, "tag", "", "image reference, e.g. spiralbench/manager:dev (required)")
	flag.StringVar(&o.out, "o", "", "output tarball (required)")
	flag.StringVar(&o.rootfs, "rootfs", "", "directory that becomes the first layer (e.g. a debootstrap rootfs)")
	flag.BoolVar(&o.nonroot, "nonroot", false, "add a distroless-style base: /etc/passwd and /etc/group with root and nonroot (65532), CA certificates, /tmp")
	flag.StringVar(&o.caCerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "CA bundle copied by -nonroot")
	flag.Var(&o.adds, "add", "SRC:DST, a host file or directory added at DST (repeatable)")
	flag.StringVar(&o.entrypoint, "entrypoint", "", "comma-separated entrypoint")
	flag.StringVar(&o.cmd, "cmd", "", "comma-separated command")
	flag.Var(&o.env, "env", "K=V added to the image's environment (repeatable); PATH is always set")
	flag.Var(&o.labels, "label", "K=V image label (repeatable)")
	flag.StringVar(&o.user, "user", "", "user the image runs as, e.g. 65532:65532")
	flag.StringVar(&o.workdir, "workdir", "", "working directory")
	flag.Parse()
	if o.tag == "" || o.out == "" {
		flag.Usage()
		os.Exit(2)
	}
	t0 := time.Now()
	digest, err := build(o)
	if err != nil {
		log.Fatalf("%s: %v", o.tag, err)
	}
	log.Printf("wrote %s: %s %s in %.1fs", o.out, o.tag, digest, time.Since(t0).Seconds())
}

func build(o options) (v1.Hash, error) {
	ref, err := name.NewTag(o.tag)
	if err != nil {
		return v1.Hash{}, err
	}
	var layers []v1.Layer
	if o.rootfs != "" {
		l, err := layer(func(w *layerWriter) error { return w.Tree(o.rootfs, "/", true) })
		if err != nil {
			return v1.Hash{}, fmt.Errorf("rootfs %s: %w", o.rootfs, err)
		}
		layers = append(layers, l)
	}
	if o.nonroot {
		l, err := layer(func(w *layerWriter) error { return nonrootBase(w, o.caCerts) })
		if err != nil {
			return v1.Hash{}, fmt.Errorf("nonroot base: %w", err)
		}
		layers = append(layers, l)
	}
	if len(o.adds) > 0 {
		l, err := layer(func(w *layerWriter) error {
			for _, a := range o.adds {
				src, dst, ok := strings.Cut(a, ":")
				if !ok || src == "" || dst == "" {
					return fmt.Errorf("-add %q: want SRC:DST", a)
				}
				if err := w.Tree(src, dst, false); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return v1.Hash{}, err
		}
		layers = append(layers, l)
	}
	if len(layers) == 0 {
		return v1.Hash{}, errors.New("nothing to put in the image: give -rootfs, -nonroot or -add")
	}
	img, err := mutate.AppendLayers(empty.Image, layers...)
	if err != nil {
		return v1.Hash{}, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return v1.Hash{}, err
	}
	cf = cf.DeepCopy()
	// containerd refuses to unpack an image without a platform.
	cf.OS, cf.Architecture = "linux", "amd64"
	cf.Created = v1.Time{Time: epoch}
	cf.Config.Env = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, o.env...)
	cf.Config.Entrypoint, cf.Config.Cmd = split(o.entrypoint), split(o.cmd)
	cf.Config.User, cf.Config.WorkingDir = o.user, o.workdir
	if len(o.labels) > 0 {
		cf.Config.Labels = map[string]string{}
		for _, kv := range o.labels {
			k, v, _ := strings.Cut(kv, "=")
			cf.Config.Labels[k] = v
		}
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return v1.Hash{}, err
	}
	if err := tarball.WriteToFile(o.out, ref, img); err != nil {
		return v1.Hash{}, err
	}
	return img.Digest()
}

// layer writes one uncompressed layer to a temporary file and returns it as a gzip layer.
func layer(fill func(*layerWriter) error) (v1.Layer, error) {
	f, err := os.CreateTemp("", "layer-*.tar")
	if err != nil {
		return nil, err
	}
	// The file is read lazily by tarball.WriteToFile; unlinking it now keeps it readable
	// through the open descriptor and leaves nothing behind.
	defer os.Remove(f.Name())
	w := newLayerWriter(f)
	if err := fill(w); err != nil {
		f.Close()
		return nil, err
	}
	if err := w.Close(); err != nil {
		f.Close()
		return nil, err
	}
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return io.NopCloser(f), nil
	}, tarball.WithCompressionLevel(gzip.BestSpeed))
}

// nonrootBase is what gcr.io/distroless/static:nonroot provides besides the binary.
func nonrootBase(w *layerWriter, caCerts string) error {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonrootUID, nonrootUID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonrootUID)
	certs, err := os.ReadFile(caCerts)
	if err != nil {
		return fmt.Errorf("CA certificates (apt-get install ca-certificates): %w", err)
	}
	for _, f := range []struct {
		name    string
		mode    int64
		content []byte
	}{
		{"/etc/passwd", 0o644, []byte(passwd)},
		{"/etc/group", 0o644, []byte(group)},
		{"/etc/ssl/certs/ca-certificates.crt", 0o644, certs},
		{"/etc/nsswitch.conf", 0o644, []byte("hosts: files dns\n")},
	} {
		if err := w.File(f.name, f.mode, 0, f.content); err != nil {
			return err
		}
	}
	if err := w.Dir("/tmp", 0o1777, 0); err != nil {
		return err
	}
	if err := w.Dir("/root", 0o700, 0); err != nil {
		return err
	}
	return w.Dir("/home/nonroot", 0o700, nonrootUID)
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
