#!/usr/bin/env bash
# Wallet ledger throughput (plain Charge, and Reserve+Capture: the metered
# path of an answer) next to pgbench on the same PostgreSQL server.
# Not part of `make test`. Needs PostgreSQL on 127.0.0.1:5432 (user postgres)
# and pgbench (Debian: postgresql-contrib / postgresql-client).
#
#   bench/wallet/run.sh            # 10 s each
#   DURATION=30 CLIENTS=16 bench/wallet/run.sh
set -euo pipefail

DURATION="${DURATION:-10}"
CLIENTS="${CLIENTS:-8}"
PGURL="${PGURL:-postgres://postgres@127.0.0.1:5432}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

echo "== wallet: BenchmarkConcurrentCharges, BenchmarkConcurrentReserveCapture, BenchmarkConcurrentBilledAnswers (${DURATION}s each, GOMAXPROCS x 8 goroutines, 100 users)"
TEST_DATABASE_URL="$PGURL/postgres?sslmode=disable" \
  go test -run '^$' -bench 'BenchmarkConcurrent(Charges|ReserveCapture|BilledAnswers)$' -benchtime "${DURATION}s" -count 1 \
  ./services/wallet/internal/wallet/ 2>&1 | grep -v 'migration applied' | tee /tmp/wallet-bench.txt
metric() { awk -v unit="$1" '{for (i=1;i<=NF;i++) if ($i==unit) print $(i-1)}' /tmp/wallet-bench.txt; }
wallet_tps="$(metric 'transfers/s')"
answers_ps="$(metric 'answers/s' | sed -n 1p)"
billed_ps="$(metric 'answers/s' | sed -n 2p)"

if ! command -v pgbench >/dev/null 2>&1; then
  echo "pgbench not found (apt-get install postgresql-contrib)" >&2
  echo "wallet charges        : ${wallet_tps} transfers/s"
  echo "wallet reserve+capture: ${answers_ps} answers/s"
  echo "wallet billed answers  : ${billed_ps} answers/s"
  exit 0
fi
export PGOPTIONS='-c client_min_messages=warning'
db=agentic_wallet_pgbench
psql "$PGURL/postgres" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
trap 'psql "$PGURL/postgres" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true' EXIT
pgbench -q -i -s 1 "$PGURL/$db" >/dev/null 2>&1
echo "== pgbench TPC-B-like, scale 1, ${CLIENTS} clients, ${DURATION}s"
pgbench -c "$CLIENTS" -j 2 -T "$DURATION" "$PGURL/$db" 2>&1 | tee /tmp/wallet-pgbench.txt | grep -E 'tps|latency'
pg_tps="$(awk -F'= ' '/^tps/ {split($2, a, " "); print a[1]}' /tmp/wallet-pgbench.txt)"

echo
echo "wallet charges         : ${wallet_tps} transfers/s"
echo "wallet reserve+capture : ${answers_ps} answers/s (2 transactions, 3 transfers each)"
echo "wallet billed answers  : ${billed_ps} answers/s (the same with limit, low balance, auto-recharge settings and agent fee checks)"
echo "pgbench tpcb           : ${pg_tps} tps"
