#!/usr/bin/env bash
# Contract tests of the sandbox with Schemathesis: both interfaces, one sandbox process each run.
# usage: run.sh SANDBOX_BIN [v3|legacy|both]   (reports under $OUT, default /tmp/contract/run)
# Known failures live in baseline/<name>.json; a run fails only on failures not listed there.
# UPDATE=1 merges this run's failures into the baseline; PRUNE=1 drops entries no longer reproduced.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:?sandbox binary}"); which=${2:-both}
out=${OUT:-$here/run}; st=${ST:-$here/venv/bin/st}
docs=${DOCS:-$here}           # v3.yaml and legacy.yaml (generated/openapi/ in the repo)
mkdir -p "$out"
cd "$out"                     # Schemathesis and Hypothesis keep their caches in the working directory

run_one() {  # $1 = v3|legacy
  local name=$1 log="$out/sandbox-$1.log"
  # A fresh sandbox per interface: the runs create and delete records.
  "$bin" --addr 127.0.0.1:0 --rate-limit off --legacy-rate-limit off >"$log" 2>&1 &
  local pid=$!
  trap "kill $pid 2>/dev/null; wait $pid 2>/dev/null || true" RETURN
  for _ in $(seq 50); do grep -q 'legacy /api at' "$log" && break; sleep 0.1; done
  export SANDBOX_ORIGIN; SANDBOX_ORIGIN=$(sed -n 's/.*legacy \/api at \(http:[^ ]*\).*/\1/p' "$log")
  [ -n "$SANDBOX_ORIGIN" ] || { echo "$name: the sandbox did not start, see $log" >&2; return 1; }
  export LEGACY_TOKEN=unused
  if [ "$name" = legacy ]; then
    LEGACY_TOKEN=$(curl -sf -X POST "$SANDBOX_ORIGIN/api/users/authenticate" \
      -H 'Accept: application/json; version=1' -H 'Content-Type: application/json' \
      -d '{"user":{"username":"manager@example.com","password":"manager-pass"}}' |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["auth_token"])')
  fi
  local start=$SECONDS rc=0 extra=()
  [ -n "${UPDATE:-}" ] && extra+=(--baseline-update)
  [ -n "${PRUNE:-}" ] && extra+=(--baseline-prune)
  timeout 300 "$st" --config-file "$here/schemathesis.toml" run "$docs/$name.yaml" \
    --baseline "$here/baseline/$name.json" "${extra[@]}" \
    --report ndjson,json,junit --report-dir "$out/$name" >"$out/$name.out" 2>&1 || rc=$?
  echo "$name: exit $rc in $((SECONDS - start)) s ($(tail -1 "$out/$name.out" | tr -d '='))"
  return 0
}

case $which in
  v3|legacy) run_one "$which" ;;
  both) run_one v3; run_one legacy ;;
esac
