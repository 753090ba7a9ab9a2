// Package filelock keeps two runs of a tool from writing one file at the
// same time: a match's PGN record, datagen's data and pack files. Two
// match runs resumed on one record would play the same openings again and
// interleave their games; two datagen runs on one data file would write
// over each other's records. Lock takes an advisory lock that the
// operating system drops when the file is closed or the process ends, so
// a killed run never leaves a stale lock behind.
package filelock

import (
	"errors"
	"fmt"
	"os"
)

// ErrLocked is the error (wrapped) of Lock when another open file already
// holds the lock.
var ErrLocked = errors.New("in use by another run (its lock is held)")

// Lock takes an exclusive advisory lock on f without waiting. When another
// open file (in this process or another) holds one, it returns an error
// wrapping ErrLocked that names the file. The lock lasts until f is closed.
// On systems without flock (not Unix) it takes no lock and returns nil.
func Lock(f *os.File) error {
	err := lock(f)
	if errors.Is(err, ErrLocked) {
		return fmt.Errorf("%s: %w", f.Name(), ErrLocked)
	}
	if err != nil {
		return fmt.Errorf("%s: lock: %w", f.Name(), err)
	}
	return nil
}

// OpenLocked opens the file at path with flag and perm, as os.OpenFile,
// and locks it. A file that is replaced at path (renamed over) between the
// open and the lock is opened again, so the lock held is always on the
// file that path names.
func OpenLocked(path string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		f, err := os.OpenFile(path, flag, perm)
		if err != nil {
			return nil, err
		}
		if err := Lock(f); err != nil {
			f.Close()
			return nil, err
		}
		held, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		now, err := os.Stat(path)
		if err == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close()
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
}
