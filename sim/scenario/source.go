package scenario

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/clustersim/clustersim/sim/manifest"
)

// source reads manifests from disk or from an embedded file system, with
// paths relative to the scenario file resolved the same way for both.
type source interface {
	read(p string) ([]*manifest.Document, error)
	exists(p string) bool
	// resolve joins a path given in the file at base onto base's folder.
	resolve(base, rel string) string
	// isFile says whether p is a regular file (not a folder).
	isFile(p string) bool
	// irregular describes p when it is neither a regular file nor a
	// folder (manifest.Irregular), else "".
	irregular(p string) string
}

type diskSource struct{}

func (diskSource) read(p string) ([]*manifest.Document, error) { return manifest.ReadPath(p) }

func (diskSource) exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

func (diskSource) isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func (diskSource) irregular(p string) string { return manifest.Irregular(os.Stat, p) }

func (fsSource) irregular(string) string { return "" }

func (memSource) irregular(string) string { return "" }

func (diskSource) resolve(base, rel string) string {
	if filepath.IsAbs(rel) {
		return filepath.Clean(rel)
	}
	return filepath.Join(filepath.Dir(base), rel)
}

type fsSource struct{ fsys fs.FS }

func (s fsSource) read(p string) ([]*manifest.Document, error) { return manifest.ReadFS(s.fsys, p) }

func (s fsSource) exists(p string) bool {
	_, err := fs.Stat(s.fsys, p)
	return err == nil
}

func (s fsSource) isFile(p string) bool {
	fi, err := fs.Stat(s.fsys, p)
	return err == nil && fi.Mode().IsRegular()
}

func (fsSource) resolve(base, rel string) string {
	return path.Join(path.Dir(base), rel)
}

// memSource is one scenario document held in memory (sim lint -f's); it
// includes nothing of its own.
type memSource struct {
	name string
	data []byte
}

func (s memSource) read(p string) ([]*manifest.Document, error) {
	if p != s.name {
		return nil, &manifest.Error{File: p, Msg: "no such file"}
	}
	return manifest.ReadBytes(s.name, s.data)
}

func (s memSource) exists(p string) bool { return p == s.name }

func (s memSource) isFile(p string) bool { return p == s.name }

func (memSource) resolve(base, rel string) string { return path.Join(path.Dir(base), rel) }
