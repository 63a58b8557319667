# shellcheck shell=bash disable=SC2034  # the variables are the callers'
# The arguments and helpers of install_test.sh and dropin_test.sh; source it
# with their arguments, MODE BUILD_DIR WORK_DIR LIBDIR. The caller sets
# `quiet_log` (a scratch file) before it calls quiet.

mode=$1
build_dir=$2
work=$3
libdir=$4
prefix=$work/prefix
lib=$prefix/$libdir
cmake=${CMAKE_COMMAND:-cmake}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

step() { echo "== $*"; }

# Runs a command quietly; shows its output if it fails. The output stays in
# $quiet_log for the caller to read.
quiet() {
  if ! "$@" >"${quiet_log:?}" 2>&1; then
    cat "$quiet_log" >&2
    fail "command failed: $*"
  fi
}

# The program must load libbdmpi from the prefix and no other MPI library.
check_linkage() {
  local program=$1 libs
  libs=$(ldd "$program")
  [[ $libs == *"$lib/libbdmpi.so"* ]] ||
    fail "$program does not load $lib/libbdmpi.so:"$'\n'"$libs"
  [[ $libs != *libmpi.so* ]] || fail "$program loads another MPI:"$'\n'"$libs"
}
