//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

func lock(f *os.File) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := sc.Control(func(fd uintptr) {
		for {
			lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if !errors.Is(lerr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if errors.Is(lerr, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return lerr
}
