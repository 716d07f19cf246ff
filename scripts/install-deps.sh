#!/usr/bin/env bash
# Installs the Debian packages bankcheck builds and tests with, only those missing.
# Safe to run repeatedly; does nothing when everything is present.
set -euo pipefail
pkgs=(cmake make g++ libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev
      libbenchmark-dev zlib1g-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then exit 0; fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
