#!/usr/bin/env bash
# Installs the Debian packages kausal needs, only those that are missing (idempotent).
# Run as root on Debian 12; prints nothing when everything is already there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  omniidl libomniorb4-dev libcos4-dev omniorb-nameserver
  libboost-thread-dev libeigen3-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  libspdlog-dev libssl-dev libgtest-dev libbenchmark-dev
  qt6-base-dev qt6-charts-dev fonts-dejavu-core
  libsundials-dev
  iproute2 openssl
  clang libclang-rt-14-dev
  libzip-dev libpugixml-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run as root (or install them) first" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
