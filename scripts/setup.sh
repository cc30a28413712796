#!/usr/bin/env bash
# Installs ktune's build and test dependencies from Debian 12's archive. Idempotent:
# packages that are already installed are left alone, and apt is not touched at all
# when nothing is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config ccache
  libhalide14-0-dev   # algorithms, JIT, AOT (brings LLVM 14)
  libisl-dev          # polyhedral analysis
  libsqlite3-dev      # the tuning database
  libtbb-dev          # parallel builds and feature extraction
  libxgboost-dev      # the learned cost model
  nlohmann-json3-dev  # specs, schedules, manifests
  libcli11-dev        # the command line
  libgtest-dev libgmock-dev  # tests
  libopenblas-dev     # ktune bench: the BLAS a user would pick instead
  libdnnl-dev         # ktune bench: oneDNN primitives a user would pick instead
  chromium            # tests render ktune report's HTML headless
  g++-aarch64-linux-gnu libc6-arm64-cross  # arm64 bundles and exports (cross compiler, libc)
  qemu-user-static    # tests run arm64 runners and check programs under emulation
  openmpi-bin libopenmpi-dev  # mpirun ktune tune: measuring ranks on several machines
  python3             # tests check every ktune command of README.md and docs/ against the parser
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "ktune setup: all ${#PACKAGES[@]} packages are installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "ktune setup: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
