package main

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// epoch is every entry's mtime, so the same inputs give the same layer digest.
var epoch = time.Unix(0, 0)

// layerWriter writes one image layer as an uncompressed tar stream.
type layerWriter struct {
	tw    *tar.Writer
	dirs  map[string]bool      // directories already written, so parents are added once
	links map[[2]uint64]string // (device, inode) -> first path, to keep hard links as links
}

func newLayerWriter(w io.Writer) *layerWriter {
	return &layerWriter{tw: tar.NewWriter(w), dirs: map[string]bool{}, links: map[[2]uint64]string{}}
}

func (l *layerWriter) Close() error { return l.tw.Close() }

// parents writes the missing parent directories of name (root-owned, 0755).
func (l *layerWriter) parents(name string) error {
	dir := path.Dir(name)
	if dir == "." || dir == "/" || l.dirs[dir] {
		return nil
	}
	if err := l.parents(dir); err != nil {
		return err
	}
	l.dirs[dir] = true
	return l.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX})
}

// File adds a regular file with the given content and owner.
func (l *layerWriter) File(name string, mode int64, uid int, content []byte) error {
	name = strings.TrimPrefix(path.Clean(name), "/")
	if err := l.parents(name); err != nil {
		return err
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(content)),
		Uid: uid, Gid: uid, ModTime: epoch, Format: tar.FormatPAX}
	if err := l.tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := l.tw.Write(content)
	return err
}

// Dir adds an empty directory with the given mode and owner.
func (l *layerWriter) Dir(name string, mode int64, uid int) error {
	name = strings.TrimPrefix(path.Clean(name), "/")
	if err := l.parents(name); err != nil {
		return err
	}
	l.dirs[name] = true
	return l.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode,
		Uid: uid, Gid: uid, ModTime: epoch, Format: tar.FormatPAX})
}

// Tree adds the host file or directory src at dst inside the image. keepOwner keeps the host's
// uid/gid (a rootfs made by debootstrap has a few non-root files); otherwise entries are root's.
// Below the pseudo filesystems (dev, proc, sys) of a rootfs only the directories themselves go in:
// the runtime mounts them.
func (l *layerWriter) Tree(src, dst string, keepOwner bool) error {
	dst = strings.TrimPrefix(path.Clean("/"+dst), "/")
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		name := path.Join(dst, filepath.ToSlash(rel))
		if name == "" || name == "." {
			return nil // the image root itself
		}
		if dst == "" && d.IsDir() && rel != "." && isPseudoFS(rel) {
			if err := l.entry(p, name, keepOwner); err != nil {
				return err
			}
			return fs.SkipDir
		}
		if d.Type()&(fs.ModeSocket|fs.ModeNamedPipe|fs.ModeDevice|fs.ModeCharDevice) != 0 {
			return nil
		}
		return l.entry(p, name, keepOwner)
	})
}

func isPseudoFS(rel string) bool {
	switch filepath.ToSlash(rel) {
	case "dev", "proc", "sys":
		return true
	}
	return false
}

func (l *layerWriter) entry(p, name string, keepOwner bool) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if err := l.parents(name); err != nil {
		return err
	}
	link := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(p); err != nil {
			return err
		}
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	hdr.Name, hdr.Format = name, tar.FormatPAX
	hdr.Uname, hdr.Gname = "", ""
	hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = epoch, time.Time{}, time.Time{}
	st, _ := fi.Sys().(*syscall.Stat_t)
	hdr.Uid, hdr.Gid = 0, 0
	if keepOwner && st != nil {
		hdr.Uid, hdr.Gid = int(st.Uid), int(st.Gid)
	}
	if fi.IsDir() {
		hdr.Name += "/"
		l.dirs[name] = true
	}
	if fi.Mode().IsRegular() && st != nil && st.Nlink > 1 {
		key := [2]uint64{uint64(st.Dev), st.Ino}
		if first, ok := l.links[key]; ok {
			hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeLink, first, 0
			return l.tw.WriteHeader(hdr)
		}
		l.links[key] = name
	}
	if err := l.tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(l.tw, f)
	return err
}
