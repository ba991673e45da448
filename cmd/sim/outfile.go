package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// atomicFile is an output file (--report, --events, --html, -o of import,
// ...). What it does depends on what is at its path:
//
//   - nothing, or a regular file: it is written to a temporary file next
//     to the path, which Commit renames into place and Abort (safe after
//     Commit) removes, so a reader never sees half a file and an old one
//     is never lost to a failed write or an error on the way;
//   - a symbolic link: the same at the file it points to (the link stays);
//   - a character device or a FIFO (/dev/null, /dev/stdout, a named pipe):
//     it is written through, as a shell redirection writes it; Commit
//     closes it, and what was written cannot be taken back;
//   - anything else (a folder, a block device, a socket): it is refused.
type atomicFile struct {
	*os.File
	// path is where Commit renames the temporary file; "" when writing
	// through.
	path string
	done bool
}

// maxLinks bounds the symbolic links followed to an output's file, as
// the kernel bounds them (ELOOP).
const maxLinks = 40

// createAtomic starts an output file at path (see atomicFile). A new file
// gets 0644 and a replaced one keeps its mode (os.CreateTemp alone would
// leave 0600). Waiting for a FIFO's reader ends when ctx is cancelled.
// Stale temporary files of killed runs in the same folder are removed
// first (cleanStaleTemps).
func createAtomic(ctx context.Context, path string) (*atomicFile, error) {
	target, fi, through, err := outputTarget(path)
	if err != nil {
		return nil, err
	}
	if through {
		f, err := openThrough(ctx, target, fi)
		if err != nil {
			return nil, err
		}
		return &atomicFile{File: f}, nil
	}
	dir := filepath.Dir(target)
	cleanStaleTemps(dir, time.Now())
	tmp, err := os.CreateTemp(dir, tempPattern(filepath.Base(target)))
	if err != nil {
		return nil, err
	}
	lockTemp(tmp)
	mode := os.FileMode(0o644)
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return &atomicFile{File: tmp, path: target}, nil
}

// outputTarget follows path's symbolic links to what an output writes:
// the file (fi nil when there is none yet; then it is created there), and
// whether to write through it instead of replacing it. A link into /proc
// (/dev/stdout, /dev/fd/N, /proc/self/fd/N) names an open file
// descriptor, not a file: it is written through whatever it is.
func outputTarget(path string) (target string, fi fs.FileInfo, through bool, err error) {
	p := path
	for hops := 0; ; hops++ {
		if isProcPath(p) {
			fi, err := os.Stat(path)
			if err != nil {
				return "", nil, false, err
			}
			return path, fi, true, checkKind(path, fi)
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, false, nil
		}
		if err != nil {
			return "", nil, false, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if err := checkKind(p, fi); err != nil {
				return "", nil, false, err
			}
			return p, fi, !fi.Mode().IsRegular(), nil
		}
		if hops == maxLinks {
			return "", nil, false, fmt.Errorf("more than %d symbolic links to follow from %s (a loop?)", maxLinks, path)
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", nil, false, err
		}
		if !filepath.IsAbs(link) {
			// Relative to the link's real folder: "a/sym/../x" is not "a/x"
			// when sym is a link itself.
			dir := filepath.Dir(p)
			if real, err := filepath.EvalSymlinks(dir); err == nil && !isProcPath(real) {
				dir = real
			}
			link = filepath.Join(dir, link)
		}
		p = link
	}
}

// checkKind refuses what an output may not write to.
func checkKind(p string, fi fs.FileInfo) error {
	m := fi.Mode()
	switch {
	case m.IsRegular(), m&fs.ModeNamedPipe != 0, m&fs.ModeCharDevice != 0:
		return nil
	case m.IsDir():
		return fmt.Errorf("%s is a folder: give the name of a file to write", p)
	case m&fs.ModeDevice != 0:
		return fmt.Errorf("%s is a block device: outputs are written only to files, character devices (such as /dev/null) and FIFOs", p)
	case m&fs.ModeSocket != 0:
		return fmt.Errorf("%s is a socket: outputs are written only to files, character devices (such as /dev/null) and FIFOs", p)
	}
	return fmt.Errorf("%s is not a regular file (%s): outputs are written only to files, character devices (such as /dev/null) and FIFOs", p, m.Type())
}

// isProcPath says whether p lies in /proc (Linux's open file descriptors
// and their magic links).
func isProcPath(p string) bool {
	p = filepath.Clean(p)
	return p == "/proc" || strings.HasPrefix(p, "/proc/")
}

// openThrough opens a device, FIFO or file descriptor for writing, as a
// shell's > does, but never creates or truncates a file: a regular file
// behind /dev/stdout (the shell's redirection) is appended to.
func openThrough(ctx context.Context, p string, fi fs.FileInfo) (*os.File, error) {
	switch {
	case fi.Mode()&fs.ModeNamedPipe != 0:
		return openFIFO(ctx, p)
	case fi.Mode().IsRegular():
		return os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	}
	return os.OpenFile(p, os.O_WRONLY, 0)
}

// Commit finishes the file: flushes it to disk and renames it into place,
// or closes what it writes through.
func (f *atomicFile) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	if f.path == "" {
		return f.Close()
	}
	err := errors.Join(f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort drops the file unless it was committed (what was written through
// a device or FIFO stays written).
func (f *atomicFile) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	if f.path != "" {
		os.Remove(f.Name())
	}
}

// writeAtomic writes data to path through an atomicFile.
func writeAtomic(ctx context.Context, path string, data []byte) error {
	f, err := createAtomic(ctx, path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// Temporary files are named .NAME.clustersim-PID-RANDOM.tmp next to NAME.
// A run killed with SIGKILL (or a machine that lost power) leaves its own
// behind; the next output written in that folder removes those that are
// stale: of this exact pattern, untouched for staleTempAge, and not
// locked. Every writer holds an exclusive lock (flock) on its temporary
// file for as long as it writes, which the kernel drops when the process
// dies however it dies, so a concurrent run's file, however long it has
// been quiet, is never removed (the age covers the moment between the
// file's creation and its lock). Where flock is not available, nothing is
// removed.
var tempRE = regexp.MustCompile(`^\..+\.clustersim-[0-9]+-[0-9]+\.tmp$`)

const staleTempAge = time.Hour

func tempPattern(base string) string {
	return "." + base + ".clustersim-" + strconv.Itoa(os.Getpid()) + "-*.tmp"
}

// cleanStaleTemps removes the stale temporary files of killed runs in dir
// (best effort: an error leaves the file).
func cleanStaleTemps(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !tempRE.MatchString(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < staleTempAge {
			continue
		}
		removeIfUnlocked(filepath.Join(dir, e.Name()))
	}
}
