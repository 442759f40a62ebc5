#!/usr/bin/env bash
# The TypeScript package as its users get it (issue 34): packed, linted, installed into
# fresh projects, type-checked there with the strictest settings and run on Node 18, 20, 22.
#
# usage: tests/typescript/packaging/check.sh      (after `npm ci --prefix tests/typescript`
#        and `cargo build -p sandbox`; `cargo xtask ci` runs it as a step)
#
#  1. `npm pack` of generated/typescript: its `prepare` script builds dist/ with the pinned tsc.
#  2. publint --strict and attw (its ESM-only profile) on the tarball.
#  3. A fresh project installs the tarball; the README's TypeScript quick start
#     (tests/typescript/examples/quickstart.ts) is type-checked there under the strictest
#     settings for Node (no DOM library, the package's own .d.ts files checked too), and a
#     browser file without Node's types with bundler resolution.
#  4. The quick start runs against the sandbox on Node 18, 20 and 22 (binaries of the `node`
#     npm package, exact versions below, cached under target/ts-packaging), and a CommonJS
#     file loads the package: `import()` on each, `require()` on 20 and 22.
#  5. A copy of the package folder as a git checkout has it (sources, no dist/) installs
#     into another fresh project and imports: `prepare` built it, with no manual step.
#
# SANDBOX_BIN names the sandbox binary (default: target/debug/sandbox, under
# CARGO_TARGET_DIR when set).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
tools="$root/tests/typescript/node_modules"
sandbox_bin=${SANDBOX_BIN:-${CARGO_TARGET_DIR:-$root/target}/debug/sandbox}
cache="$root/target/ts-packaging"
# The Node versions the package is tested on: the newest of each line at the time of pinning.
node_versions=(18.20.8 20.20.2 22.23.3)

[ -x "$tools/.bin/tsc" ] || { echo "no dev tools: run npm ci --prefix tests/typescript" >&2; exit 1; }
[ -x "$sandbox_bin" ] || { echo "no sandbox at $sandbox_bin: run cargo build -p sandbox" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ts-packaging.XXXXXX")
sandbox_pid=
cleanup() {
  [ -z "$sandbox_pid" ] || { kill "$sandbox_pid" 2>/dev/null; wait "$sandbox_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
started=$SECONDS
step() { echo "packaging: $* ($((SECONDS - started)) s)"; }
# npm, quiet: no audit, funding or update notices (they ask the registry).
npmq() { npm --no-audit --no-fund --no-update-notifier --loglevel=error "$@"; }

# ------------------------------------------------------------------ 1. the tarball
step "npm pack ./generated/typescript (prepare builds dist/)"
npmq pack "$root/generated/typescript" --pack-destination "$work" >/dev/null
tarball=$(ls "$work"/inspection-client-*.tgz)
listing=$(tar tzf "$tarball")
for f in package/dist/index.js package/dist/index.d.ts package/dist/v3/index.js package/dist/legacy/index.d.ts; do
  grep -qx "$f" <<<"$listing" || { echo "the tarball has no $f" >&2; exit 1; }
done
! grep -q '^package/tsconfig.json$\|\.test\.' <<<"$listing" || { echo "the tarball holds build or test files" >&2; exit 1; }
echo "packaging: $(basename "$tarball"): $(wc -l <<<"$listing") files"

# ------------------------------------------------------------------ 2. linters
step "publint --strict"
"$tools/.bin/publint" run --strict "$tarball"
step "attw --profile esm-only"
"$tools/.bin/attw" "$tarball" --profile esm-only --format table-flipped --no-emoji --no-color

# ------------------------------------------------------------------ 3. a fresh project
step "a fresh project installs the tarball"
app="$work/app"
mkdir -p "$app/src" "$app/browser"
cat >"$app/package.json" <<'JSON'
{ "name": "packaging-check", "private": true, "type": "module" }
JSON
(cd "$app" && npmq install --offline "$tarball" >/dev/null)
[ -f "$app/node_modules/inspection-client/dist/index.js" ] || { echo "the installed package has no dist/" >&2; exit 1; }
cp "$root/tests/typescript/examples/quickstart.ts" "$app/src/quickstart.ts"
# The strictest settings a Node project uses: every strict flag, the package's own
# declarations checked (no skipLibCheck), Node's types and no DOM library.
cat >"$app/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2022"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "exactOptionalPropertyTypes": true,
    "noUncheckedIndexedAccess": true,
    "noImplicitOverride": true,
    "noImplicitReturns": true,
    "noFallthroughCasesInSwitch": true,
    "noPropertyAccessFromIndexSignature": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "allowUnreachableCode": false,
    "allowUnusedLabels": false,
    "noUncheckedSideEffectImports": true,
    "verbatimModuleSyntax": true,
    "isolatedModules": true,
    "forceConsistentCasingInFileNames": true,
    "skipLibCheck": false,
    "typeRoots": ["$tools/@types"],
    "types": ["node"],
    "rootDir": "src",
    "outDir": "out"
  },
  "include": ["src"]
}
JSON
# A browser project: DOM library, no Node types, a bundler's resolution; type-checked only.
cat >"$app/browser/main.ts" <<'TS'
import { ApiKey, Client, InspectionId } from "inspection-client/v3";
import { InspectionError } from "inspection-client";

const client = new Client(new URL("/v3", location.href).href, new ApiKey("demo-key", "demo-secret"));
const out: WritableStream<Uint8Array> = new WritableStream();
client
  .getInspectionPdfTo(InspectionId("ins_demo_full"), out)
  .then((bytes: number) => document.body.append(`${bytes} bytes`))
  .catch((e: unknown) => document.body.append(e instanceof InspectionError ? e.message : "failed"));
TS
cat >"$app/browser/tsconfig.json" <<'JSON'
{
  "extends": "../tsconfig.json",
  "compilerOptions": {
    "lib": ["ES2022", "DOM"],
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "types": [],
    "noEmit": true,
    "rootDir": "."
  },
  "include": ["."]
}
JSON
step "tsc: Node, strictest settings, the package's .d.ts included"
"$tools/.bin/tsc" -p "$app"
step "tsc: browser, DOM library and no Node types, bundler resolution"
"$tools/.bin/tsc" -p "$app/browser"
# CommonJS: import() works everywhere; require() of an ES module from Node 20.19 and 22.12.
cat >"$app/import.cjs" <<'JS'
import("inspection-client").then((m) => {
  if (typeof m.v3.Client !== "function" || typeof m.InspectionError !== "function") throw new Error("no client");
  console.log("import(): ok");
});
JS
cat >"$app/require.cjs" <<'JS'
const { v3, InspectionError } = require("inspection-client");
if (typeof v3.Client !== "function" || typeof InspectionError !== "function") throw new Error("no client");
console.log("require(): ok");
JS

# ------------------------------------------------------------------ 4. Node 18, 20, 22
node_bin() {  # the node binary of version $1, installed once from the `node` npm package
  local dir="$cache/node-$1" bin
  bin="$dir/node_modules/node/bin/node"
  if [ ! -x "$bin" ] || [ "$("$bin" --version)" != "v$1" ]; then
    rm -rf "$dir"
    npmq install --prefix "$dir" --no-save --no-package-lock "node@$1" >/dev/null
  fi
  [ "$("$bin" --version)" = "v$1" ] || { echo "node@$1 gave $("$bin" --version)" >&2; return 1; }
  echo "$bin"
}

step "the sandbox"
log="$work/sandbox.log"
"$sandbox_bin" --addr 127.0.0.1:0 >"$log" 2>&1 &
sandbox_pid=$!
for _ in $(seq 100); do grep -q 'serving the v3 interface at' "$log" && break; sleep 0.1; done
url=$(sed -n 's/.*serving the v3 interface at \(http:[^ ]*\/v3\).*/\1/p' "$log" | head -1)
[ -n "$url" ] || { echo "the sandbox did not start:" >&2; cat "$log" >&2; exit 1; }

for version in "${node_versions[@]}"; do
  step "Node $version"
  node=$(node_bin "$version")
  out=$(cd "$app" && INSPECTION_URL="$url" "$node" out/quickstart.js)
  head -1 <<<"$out" | grep -qE '^created unit [A-Za-z0-9_]+$' || { echo "Node $version: the quick start printed: $out" >&2; exit 1; }
  walked=$(grep -cE '^[A-Za-z0-9_]+, results: [0-9]+$' <<<"$out" || true)
  [ "$walked" -ge 3 ] || { echo "Node $version: $walked inspections walked, expected the demo's 3 or more: $out" >&2; exit 1; }
  echo "  quick start: $(head -1 <<<"$out"), $walked inspections"
  (cd "$app" && "$node" import.cjs | sed 's/^/  /')
  if [ "${version%%.*}" -ge 20 ]; then (cd "$app" && "$node" --no-warnings require.cjs | sed 's/^/  /'); fi
done

# ------------------------------------------------------------------ 5. from a checkout
step "a checkout of the package folder installs without a manual build"
checkout="$work/checkout/generated/typescript"
mkdir -p "$checkout"
(cd "$root" && git ls-files -z generated/typescript | xargs -0 cp --parents -t "$work/checkout")
[ ! -e "$checkout/dist" ] || { echo "dist/ is committed" >&2; exit 1; }
linked="$work/linked"
mkdir -p "$linked"
echo '{ "name": "packaging-check-folder", "private": true, "type": "module" }' >"$linked/package.json"
(cd "$linked" && npmq install "$checkout" >/dev/null)
(cd "$linked" && node --input-type=module -e '
  const m = await import("inspection-client");
  if (typeof m.v3.Client !== "function") throw new Error("no client");
  console.log("  folder install: built by prepare, imports");')

step "done"
