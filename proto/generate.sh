#!/usr/bin/env bash
# Regenerates the Go code for every .proto under proto/ into proto/gen/go (or into $1).
# Installs the pinned protoc plugins into <repo>/bin when missing.
set -euo pipefail

PROTOC_GEN_GO_VERSION=v1.36.11
PROTOC_GEN_GO_GRPC_VERSION=v1.6.0

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
bin="$repo/bin"
out="${1:-$here/gen/go}"

command -v protoc >/dev/null 2>&1 || { echo "proto/generate.sh: protoc not found (apt-get install protobuf-compiler)" >&2; exit 1; }

mkdir -p "$bin"
install_plugin() { # name module version
  local name="$1" mod="$2" version="$3"
  local have=""
  if [ -x "$bin/$name" ]; then
    have="$(go version -m "$bin/$name" 2>/dev/null | awk '$1=="mod"{print $3; exit}')"
  fi
  if [ "$have" != "$version" ]; then
    echo "installing $name@$version into $bin" >&2
    GOBIN="$bin" GOWORK=off go install "$mod@$version"
  fi
}
install_plugin protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go "$PROTOC_GEN_GO_VERSION"
install_plugin protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc "$PROTOC_GEN_GO_GRPC_VERSION"

mkdir -p "$out"
cd "$here"
mapfile -t files < <(find agentic -name '*.proto' | LC_ALL=C sort)
[ "${#files[@]}" -gt 0 ] || { echo "proto/generate.sh: no .proto files found" >&2; exit 1; }

PATH="$bin:$PATH" protoc \
  -I "$here" \
  --plugin=protoc-gen-go="$bin/protoc-gen-go" \
  --plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" \
  --go_out="$out" --go_opt=paths=source_relative \
  --go-grpc_out="$out" --go-grpc_opt=paths=source_relative \
  "${files[@]}"
