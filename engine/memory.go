package engine

import (
	"errors"
	"fmt"
)

// ErrNoMemory is wrapped by the errors of CheckMemory and SetOptions when an
// allocation would not fit in the memory left.
var ErrNoMemory = errors.New("not enough memory")

// memoryReserve is kept free for everything else the process allocates.
const memoryReserve = 64 << 20

// AvailableMemory returns how many bytes the process can still allocate:
// the kernel's MemAvailable, or less where a container's memory limit
// (cgroup v2 or v1) leaves less. known is false where neither can be read
// (then nothing is checked).
func AvailableMemory() (bytes uint64, known bool) { return availableMemory() }

// CheckMemory returns nil when bytes more fit in the memory available (with
// a reserve for the rest of the process), and otherwise an error wrapping
// ErrNoMemory that says how much is available. It returns nil where the
// available memory cannot be measured.
func CheckMemory(bytes uint64) error { return checkMemory(bytes, 0) }

// HashBytes is the memory a hash table of mb MiB takes.
func HashBytes(mb int) uint64 { return tableBytes(mb) }

// checkMemory is CheckMemory with freed bytes about to be given back first.
func checkMemory(bytes, freed uint64) error {
	avail, ok := availableMemory()
	if !ok {
		return nil
	}
	avail += freed
	if bytes+memoryReserve <= avail {
		return nil
	}
	return fmt.Errorf("%w: %d MiB needed, about %d MiB available", ErrNoMemory, (bytes+memoryReserve)>>20, avail>>20)
}
