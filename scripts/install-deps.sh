#!/usr/bin/env bash
# Installs the Debian packages the CPU-side build needs; skips what is already there.
# Idempotent: a second run costs one dpkg query per package and nothing else.
set -euo pipefail

packages=(
  build-essential cmake ninja-build python3
  clang-19 libclang-19-dev llvm-19-dev llvm-19-tools libclang-rt-19-dev
  libboost1.81-dev libboost-json1.81-dev
  libspdlog-dev libsqlite3-dev libssl-dev libcli11-dev
  libtorch-dev
  libpcre2-dev libicu-dev gnuplot-nox libgloo-dev
  libgtest-dev wrk
  nginx-light python3-torch
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
