#!/usr/bin/env bash
# Smoke check of the documents service through the running local stack
# (gateway :8080, Firebase Auth emulator :9099, identity, catalog, documents,
# Kafka). Independent of the e2e suite; needs curl and jq.
# Usage: services/documents/scripts/smoke.sh
set -euo pipefail

# fail, signup, call, expect; $run is a unique suffix for this run.
. "$(dirname "$0")/../../../tilt/scripts/lib/smoke.sh"

file_id="1SmokeTestDocId_${run}abcdefghijklmnop"
doc_url="https://docs.google.com/document/d/$file_id/edit"
file_id2="1SmokeTestDocId2_${run}abcdefghijklmno"
doc_url2="https://docs.google.com/document/d/$file_id2/edit?usp=sharing"

owner=$(signup "doc-owner-$run@example.com"); other=$(signup "doc-other-$run@example.com")
expect "$(call POST /api/user/onboarding "$owner" '{"displayName":"docowner'$run'"}')" 200 >/dev/null

agent=$(expect "$(call POST /api/agents "$owner" '{"name":"Docs Tutor","description":"Answers from linked documents","category":"Testing","isPublic":false,"iconName":"ri-file-text-line","iconColor":"#4076D6","userId":"ignored","instructions":"","tags":[]}')" 201)
aid=$(echo "$agent" | jq -r .id)
echo "agent $aid"

echo "== empty list"
expect "$(call GET /api/agents/$aid/documents "$owner")" 200 'length == 0' >/dev/null

echo "== add"
doc=$(expect "$(call POST /api/agents/$aid/documents "$owner" "{\"name\":\"Syllabus\",\"url\":\"$doc_url\",\"driveFileId\":\"$file_id\",\"labels\":[\"week1\",\" week1 \",\"exam\"],\"sharingStatus\":\"shared\"}")" 201 \
  ".driveFileId == \"$file_id\" and .labels == [\"week1\",\"exam\"] and .sharingStatus == \"shared\" and .agentId == \"$aid\"")
did=$(echo "$doc" | jq -r .id)
expect "$(call POST /api/agents/$aid/documents "$owner" "{\"name\":\"Notes\",\"url\":\"$doc_url2\",\"labels\":[],\"sharingStatus\":\"shared\"}")" 201 \
  ".driveFileId == \"$file_id2\"" >/dev/null

echo "== validation"
expect "$(call POST /api/agents/$aid/documents "$owner" "{\"name\":\"My Doc\",\"url\":\"$doc_url\"}")" 400 \
  '.error == "validation_failed" and .message == "Document name cannot contain spaces."' >/dev/null
expect "$(call POST /api/agents/$aid/documents "$owner" '{"name":"Doc","url":"https://example.com/x"}')" 400 \
  '.message == "URL must be a document URL (docs.google.com/document/...)"' >/dev/null
expect "$(call POST /api/agents/$aid/documents "$owner" '{"name":"Doc","url":"https://docs.google.com/document/d/short/edit"}')" 400 \
  '.message == "Invalid Google Docs URL: Could not extract document ID from the provided URL."' >/dev/null
expect "$(call POST /api/agents/$aid/documents "$owner" "{\"name\":\"Doc\",\"url\":\"https://evil.example/docs.google.com/document/d/$file_id\"}")" 400 \
  '.message == "Invalid URL: Only Google Docs URLs (docs.google.com/document/) are supported."' >/dev/null
expect "$(call POST /api/agents/$aid/documents "$owner" "{\"name\":\"Doc\",\"url\":\"$doc_url\",\"labels\":[\"two words\"]}")" 400 \
  '.message == "Invalid label: Labels cannot contain spaces."' >/dev/null
expect "$(call POST /api/agents/$aid/documents "$owner" "{\"name\":\"syllabus\",\"url\":\"$doc_url\"}")" 409 \
  '.message == "A document with this name already exists for this agent."' >/dev/null

echo "== edit"
edited=$(echo "$doc" | jq -c '.name = "Syllabus2026" | .labels = ["week1","week2"]')
expect "$(call PUT /api/agents/$aid/documents/$did "$owner" "$edited")" 200 \
  '.name == "Syllabus2026" and .labels == ["week1","week2"]' >/dev/null
moved=$(echo "$edited" | jq -c ".url = \"$doc_url2\"")
expect "$(call PUT /api/agents/$aid/documents/$did "$owner" "$moved")" 400 '.message == "The document URL cannot be changed."' >/dev/null
expect "$(call GET /api/agents/$aid/documents "$owner")" 200 \
  "length == 2 and .[0].id == \"$did\" and .[0].name == \"Syllabus2026\" and .[0].url == \"$doc_url\"" >/dev/null

echo "== ownership"
expect "$(call GET /api/agents/$aid/documents "$other")" 404 '.error == "not_found"' >/dev/null
expect "$(call POST /api/agents/$aid/documents "$other" "{\"name\":\"Mine\",\"url\":\"$doc_url\"}")" 404 >/dev/null
expect "$(call PUT /api/agents/$aid/documents/$did "$other" "$edited")" 404 >/dev/null
expect "$(call DELETE /api/agents/$aid/documents/$did "$other")" 404 >/dev/null

echo "== delete"
expect "$(call DELETE /api/agents/$aid/documents/$did "$owner")" 204 >/dev/null
expect "$(call DELETE /api/agents/$aid/documents/$did "$owner")" 404 '.message == "Document not found"' >/dev/null
expect "$(call GET /api/agents/$aid/documents "$owner")" 200 'length == 1 and .[0].name == "Notes"' >/dev/null

echo "documents smoke: OK"
