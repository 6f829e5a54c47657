#!/usr/bin/env bash
# The Firebase Auth emulator, offline, project demo-agentic (ARCHITECTURE.md).
# Data is not persisted: every `make dev` starts with no accounts.
set -euo pipefail
cd "$(dirname "$0")/.."
export FIREBASE_CLI_DISABLE_UPDATE_CHECK=true
exec ../bin/firebase emulators:start --only auth --project demo-agentic --config firebase.json
