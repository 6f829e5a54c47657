#!/usr/bin/env bash
# Smoke check of the catalog through the running local stack (gateway :8080,
# Firebase Auth emulator :9099, identity, catalog, Kafka). Independent of the
# e2e suite; needs curl and jq. Usage: services/catalog/scripts/smoke.sh
set -euo pipefail

# fail, signup, call, expect; $run is a unique suffix for this run.
. "$(dirname "$0")/../../../tilt/scripts/lib/smoke.sh"

owner_email="owner-$run@example.com"
friend_email="friend-$run@example.com"
late_email="late-$run@example.com"

owner=$(signup "$owner_email"); friend=$(signup "$friend_email"); other=$(signup "other-$run@example.com")
# Onboard the owner and the friend (identity emits user.onboarded).
expect "$(call POST /api/user/onboarding "$owner" '{"displayName":"owner'$run'"}')" 200 >/dev/null
expect "$(call POST /api/user/onboarding "$friend" '{"displayName":"Friend '$run'"}')" 200 >/dev/null

echo "== create"
agent=$(expect "$(call POST /api/agents "$owner" '{"name":"Smoke Tutor","description":"Answers smoke test questions","category":"Testing","isPublic":false,"iconName":"ri-robot-line","iconColor":"#FF3E00","userId":"ignored","instructions":"","tags":[]}')" 201 \
  '.status == "active" and (.email | test("^smoke-tutor-[a-z2-9]{6}@"))')
id=$(echo "$agent" | jq -r .id)
echo "agent $id $(echo "$agent" | jq -r .email)"

echo "== validation"
expect "$(call POST /api/agents "$owner" '{"name":"A","description":"short","category":""}')" 400 \
  '.error == "validation_failed" and .message == "Name must be at least 2 characters"' >/dev/null
expect "$(call POST /api/agents "$owner" '{"name":"Ok","description":"long enough here","category":"c","isPublic":true}')" 400 \
  '.message == "Public agents are coming soon"' >/dev/null

echo "== list / get / patch"
expect "$(call GET /api/agents "$owner")" 200 "length == 1 and .[0].id == \"$id\"" >/dev/null
expect "$(call PATCH /api/agents/$id "$owner" '{"instructions":"Be brief","tags":["smoke"," smoke ","x"],"status":"inactive"}')" 200 \
  '.instructions == "Be brief" and .tags == ["smoke","x"] and .status == "inactive"' >/dev/null

echo "== ownership"
expect "$(call GET /api/agents/$id "$other")" 404 '.message == "Agent not found"' >/dev/null
expect "$(call GET /api/agents/$id/subscribers "$other")" 404 >/dev/null
expect "$(call GET /api/agents "$other")" 200 'length == 0' >/dev/null

echo "== subscribers"
expect "$(call POST /api/agents/$id/subscribers "$owner" "{\"email\":\"$(echo "$friend_email" | tr a-z A-Z)\"}")" 201 \
  ".status == \"active\" and .email == \"$friend_email\" and .name == \"Friend $run\"" >/dev/null
expect "$(call POST /api/agents/$id/subscribers "$owner" "{\"email\":\"$friend_email\"}")" 409 '.error == "conflict"' >/dev/null
expect "$(call POST /api/agents/$id/subscribers "$owner" "{\"email\":\"$owner_email\"}")" 400 '.message == "You already own this agent."' >/dev/null
expect "$(call POST /api/agents/$id/subscribers "$owner" "{\"email\":\"$late_email\"}")" 201 '.status == "invited"' >/dev/null

echo "== activation through identity's user.onboarded event"
late=$(signup "$late_email")
expect "$(call POST /api/user/onboarding "$late" '{"displayName":"Late Comer"}')" 200 >/dev/null
for i in $(seq 1 50); do
  subs=$(expect "$(call GET /api/agents/$id/subscribers "$owner")" 200)
  if echo "$subs" | jq -e ".[] | select(.email == \"$late_email\" and .status == \"active\")" >/dev/null; then
    break
  fi
  [ "$i" = 50 ] && fail "invited subscriber never became active: $subs"
  sleep 0.2
done
expect "$(call GET /api/agents/$id "$owner")" 200 '.subscribers == 2' >/dev/null

echo "== shared with me"
expect "$(call GET /api/agents/shared "$friend")" 200 \
  "length == 1 and .[0].id == \"$id\" and .[0].ownerName == \"owner$run\" and .[0].instructions == \"\" and .[0].email == \"\"" >/dev/null
expect "$(call GET /api/agents/shared "$other")" 200 'length == 0' >/dev/null
expect "$(call GET /api/agents/$id "$friend")" 404 '.error == "not_found"' >/dev/null

echo "== remove"
sid=$(echo "$subs" | jq -r ".[] | select(.email == \"$late_email\") | .id")
expect "$(call DELETE /api/agents/$id/subscribers/$sid "$owner")" 204 >/dev/null
expect "$(call GET /api/agents/$id "$owner")" 200 '.subscribers == 1' >/dev/null

echo "catalog smoke: OK"
