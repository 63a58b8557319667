# shellcheck shell=bash
# Shared by scripts/demo.sh and scripts/test.sh; source it, don't run it.
# Call it from the source root.
#
#   BDMPI_BUILD_DIR   build directory (default: build)
#   BDMPI_BUILD_TYPE  CMAKE_BUILD_TYPE (default: RelWithDebInfo)
#   BDMPI_CMAKE_ARGS  more configure arguments, e.g. -DBDMPI_BUILD_BENCH=OFF

BDMPI_BUILD_DIR=${BDMPI_BUILD_DIR:-build}
BDMPI_BUILD_TYPE=${BDMPI_BUILD_TYPE:-RelWithDebInfo}

# Configures and builds into $BDMPI_BUILD_DIR; needs no root.
bdmpi_build() {
  local extra=()
  read -r -a extra <<<"${BDMPI_CMAKE_ARGS:-}"
  cmake -S . -B "$BDMPI_BUILD_DIR" -DCMAKE_BUILD_TYPE="$BDMPI_BUILD_TYPE" \
    "${extra[@]}"
  cmake --build "$BDMPI_BUILD_DIR" -j"$(nproc)"
}

# Best effort: makes the POSIX message-queue limits roomy enough for many
# slaves. Each step is skipped, with a note, where it is not permitted; the
# runtime names the limit it hits if one is still too small.
bdmpi_prepare_machine() {
  # Queues work without this mount; it lets one list and remove leftovers.
  if [[ ! -d /dev/mqueue ]] || ! mountpoint -q /dev/mqueue 2>/dev/null; then
    if [[ $(id -u) -eq 0 ]]; then
      mkdir -p /dev/mqueue 2>/dev/null &&
        mount -t mqueue none /dev/mqueue 2>/dev/null ||
        echo "note: could not mount the mqueue file system at /dev/mqueue"
    else
      echo "note: /dev/mqueue is not mounted (needs root; optional)"
    fi
  fi
  # The per-user byte limit on queues (ulimit -q): raise the soft limit.
  ulimit -q unlimited 2>/dev/null || ulimit -q "$(ulimit -Hq)" 2>/dev/null || true
  # System-wide number of queues.
  local queues_max=/proc/sys/fs/mqueue/queues_max
  if [[ -r $queues_max && $(<"$queues_max") -lt 1024 ]]; then
    if [[ -w $queues_max ]]; then
      echo 1024 >"$queues_max" 2>/dev/null || true
    fi
    if [[ $(<"$queues_max") -lt 1024 ]]; then
      echo "note: $queues_max is $(<"$queues_max"); large jobs may need more"
    fi
  fi
}

# What both quick-start scripts do first: install what is missing, build,
# prepare the machine.
bdmpi_setup() {
  scripts/install-deps.sh
  bdmpi_build
  bdmpi_prepare_machine
}
