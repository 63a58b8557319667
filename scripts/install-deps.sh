#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages BDMPI needs to build and test, and only
# those that are missing; does nothing (and needs no root) when all are there.
set -euo pipefail

packages=(cmake g++ make pkg-config libopenmpi-dev openmpi-bin libhwloc-dev libelf-dev
          libgtest-dev libbenchmark-dev environment-modules
          libjemalloc-dev  # the storage-backed heap (cmake/Jemalloc.cmake)
          mold  # a faster linker for the build's many programs (cmake/FastLinker.cmake)
          libssl-dev  # HMAC-SHA256 for object names (src/common/name_tags.h)
          python3-matplotlib  # bdmpi-trace-plot
          python3-numpy  # tests/preload: a Python rank's numpy array
          gfortran  # the Fortran bindings (src/fortran) and their tests
          mpich libmpich-dev  # the oracle where Open MPI 4.1 lacks a call (MPI_T events)
          python3)  # src/fortran/gen_fortran.py generates the bindings

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: not a Debian-based system; install these by hand:" \
       "${packages[*]}" >&2
  exit 0
fi

missing=()
for package in "${packages[@]}"; do
  # dpkg -s also succeeds for removed packages that left config files.
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all build dependencies are installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
  exit 1
fi
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
