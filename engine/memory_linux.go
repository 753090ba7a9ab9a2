package engine

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// availableMemory returns how many bytes this process can still allocate
// without being killed: the kernel's MemAvailable, or less where a cgroup
// (a container's memory limit, v2 or v1) leaves less. ok is false when
// neither can be read.
func availableMemory() (n uint64, ok bool) {
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// "MemAvailable:   24215984 kB"
			if rest, found := strings.CutPrefix(sc.Text(), "MemAvailable:"); found {
				kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil {
					n, ok = kb<<10, true
				}
				break
			}
		}
		f.Close()
	}
	for _, c := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},                                 // v2
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"}, // v1
	} {
		limit, lok := readUint(c[0])
		used, uok := readUint(c[1])
		if !lok || !uok {
			continue
		}
		free := uint64(0)
		if limit > used {
			free = limit - used
		}
		if !ok || free < n {
			n, ok = free, true
		}
		break
	}
	return n, ok
}

// readUint reads a file holding one decimal number ("max" and unreadable
// files give ok false).
func readUint(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	return v, err == nil
}
