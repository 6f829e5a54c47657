# Helpers of the services' curl smoke checks (services/*/scripts/smoke.sh),
# sourced, not run: sign up an Auth emulator user, call the gateway, check a
# response. Needs curl and jq.
GATEWAY="${GATEWAY:-http://localhost:8080}"
EMULATOR="${EMULATOR:-http://127.0.0.1:9099}"
run="$(date +%s)$RANDOM"

fail() { echo "FAIL: $*" >&2; exit 1; }

signup() { # email -> idToken
  curl -sf -X POST "$EMULATOR/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-api-key" \
    -H 'Content-Type: application/json' \
    -d "{\"email\":\"$1\",\"password\":\"secret123\",\"returnSecureToken\":true}" | jq -r .idToken
}

# call METHOD PATH TOKEN [BODY] -> prints "<status> <body>"
call() {
  local out status
  out="$(mktemp)"
  status=$(curl -s -o "$out" -w '%{http_code}' -X "$1" "$GATEWAY$2" -H "Authorization: Bearer $3" \
    -H 'Content-Type: application/json' ${4:+-d "$4"})
  echo "$status $(cat "$out")"
  rm -f "$out"
}

expect() { # "status body" wanted-status jq-filter
  local got="$1" want="$2" filter="${3:-.}"
  local status="${got%% *}" body="${got#* }"
  [ "$status" = "$want" ] || fail "status $status, want $want: $body"
  if [ "$filter" != "." ]; then
    echo "$body" | jq -e "$filter" >/dev/null || fail "check '$filter' failed on: $body"
  fi
  echo "$body"
}
