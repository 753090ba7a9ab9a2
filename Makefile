# OpenBench builds engines with "make EXE=Name" in the directory of this
# file and expects the binary under that name next to it. The default
# target builds ponderosa with the Go toolchain.
EXE ?= ponderosa
GO ?= go

.PHONY: all
all:
	$(GO) build -trimpath -o $(EXE) ./cmd/ponderosa
