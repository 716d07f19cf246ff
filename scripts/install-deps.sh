#!/usr/bin/env bash
# Installs the Debian packages bankcheck builds and tests with, only those missing, and the
# pinned npm packages the report tests use (tests/reports/package-lock.json).
# Safe to run repeatedly; does nothing when everything is present.
set -euo pipefail
pkgs=(cmake make g++ libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev
      libbenchmark-dev zlib1g-dev libzstd-dev liblz4-dev
      chromium fonts-dejavu-core  # the HTML report test loads the page in headless Chromium
      python3-jsonschema python3-yaml  # the SARIF validator and the CI recipes' tests
      dpkg-dev groff-base)  # make package (dpkg-shlibdeps) and the install test (groff)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js for the report tests' validators and browser driver: any node and npm on PATH.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The JSON Schema validator (ajv), pinned, into tests/reports/node_modules (ignored by git);
# again only when the lock file changed since the last install.
node_dir="$(cd "$(dirname "$0")/../tests/reports" && pwd)"
want=$(sha256sum "$node_dir/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$node_dir/node_modules/.bankcheck-lock" 2>/dev/null)" != "$want" ]; then
  echo "install-deps: npm ci in tests/reports"
  (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$node_dir/node_modules/.bankcheck-lock"
fi
