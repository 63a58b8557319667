# shellcheck shell=bash
# Helpers of install_test.sh and dropin_test.sh; source it. The caller sets
# `lib` (the installed library folder) and `quiet_log` (a scratch file).

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

step() { echo "== $*"; }

# Runs a command quietly; shows its output if it fails. The output stays in
# $quiet_log for the caller to read.
quiet() {
  if ! "$@" >"$quiet_log" 2>&1; then
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
