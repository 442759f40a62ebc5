#!/usr/bin/env bash
# Contract tests of the sandbox with Schemathesis: both interfaces, one sandbox process each run.
# usage: run.sh SANDBOX_BIN [v3|legacy|both]   (reports under $OUT, default target/contract)
# The run fails on any finding that exceptions.txt does not cover (verdict.py reads the report).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:?sandbox binary}"); which=${2:-both}
out=$(realpath -m "${OUT:-$here/../../target/contract}"); st=$(realpath -m "${ST:-$here/../../target/python-venv/bin/st}")
docs=$(realpath -m "${DOCS:-$here/../../generated/openapi}")  # v3.yaml and legacy.yaml
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
    LEGACY_TOKEN=$(python3 - "$SANDBOX_ORIGIN" <<'PY'
import json, sys, urllib.request
body = {"user": {"username": "manager@example.com", "password": "manager-pass"}}
req = urllib.request.Request(sys.argv[1] + "/api/users/authenticate", json.dumps(body).encode(),
    {"Accept": "application/json; version=1", "Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(req))["auth_token"])
PY
)
  fi
  local start=$SECONDS rc=0
  rm -rf "${out:?}/$name"
  timeout 300 "$st" --config-file "$here/schemathesis.toml" run "$docs/$name.yaml" \
    --report junit --report-dir "$out/$name" >"$out/$name.out" 2>&1 || rc=$?
  echo "$name: schemathesis exit $rc in $((SECONDS - start)) s ($(tail -1 "$out/$name.out" | tr -d '='))"
  local report; report=$(ls "$out/$name"/junit-*.xml 2>/dev/null | head -1)
  [ -n "$report" ] || { echo "$name: no report, see $out/$name.out" >&2; return 1; }
  python3 "$here/verdict.py" "$here/exceptions.txt" "$report"
}

status=0
case $which in
  v3|legacy) run_one "$which" || status=1 ;;
  # Side by side: each has its own sandbox, seed and report, and mostly waits on its
  # sandbox's answers one case at a time.
  both)
    run_one v3 & v3=$!
    run_one legacy & legacy=$!
    wait $v3 || status=1
    wait $legacy || status=1 ;;
  *) echo "usage: run.sh SANDBOX_BIN [v3|legacy|both]" >&2; exit 2 ;;
esac
[ $status = 0 ] && echo "contract run: clean (every finding is in tests/contract/exceptions.txt)"
exit $status
