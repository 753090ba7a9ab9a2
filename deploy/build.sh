#!/bin/sh
# Builds the static release binary. The Dockerfile and CI both call this, so
# what CI checks is what the image ships.
#   deploy/build.sh OUTPUT [VERSION]
set -eu
out=${1:?usage: deploy/build.sh OUTPUT [VERSION]}
ver=${2:-${PONDEROSA_VERSION:-dev}}
CGO_ENABLED=0 go build -trimpath -buildvcs=false \
  -ldflags "-s -w -X main.version=${ver}" \
  -o "$out" ./cmd/ponderosa
