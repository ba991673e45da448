//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// lockTemp takes the writer's lock on its temporary file (see tempRE); a
// file system without locks leaves it unlocked, and then the cleaner, who
// cannot lock it either, leaves it alone.
func lockTemp(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB) })
	}
}

// removeIfUnlocked removes a stale temporary file unless a live writer
// holds its lock.
func removeIfUnlocked(p string) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) { lerr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB) }); err != nil || lerr != nil {
		return
	}
	os.Remove(p)
}

// fifoPoll is how often an output waits for a FIFO's reader to appear.
const fifoPoll = 50 * time.Millisecond

// openFIFO opens a FIFO for writing. Opening one blocks until a reader
// opens it; this tries without blocking and waits in between, so that
// Ctrl-C or SIGTERM (ctx) ends the wait.
func openFIFO(ctx context.Context, p string) (*os.File, error) {
	for {
		f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.ENXIO) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w while waiting for a reader of the FIFO %s", errSignal, p)
		case <-time.After(fifoPoll):
		}
	}
}
