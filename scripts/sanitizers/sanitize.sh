# shellcheck shell=bash
# The sanitizer build of scripts/test.sh; source it, don't run it.

# Job tests run under a sanitizer: point-to-point (small, all pairs, huge
# messages through spill files), collectives, communicators and datatypes,
# on one node and on two (the network thread and Open MPI), and a job that
# fails (MPI_Abort). Not fail_segv: the undefined-behaviour sanitizer stops
# the null store it makes on purpose before the signal the test expects.
# Not the storage_* tests: a sanitizer build does not interpose malloc, so
# there is no storage-backed allocation to test (src/slave/CMakeLists.txt).
# shellcheck disable=SC2034  # used by scripts/test.sh
BDMPI_SANITIZE_JOBS='^(job\.(p2p_ring|p2p_allpairs|bcast|collectives|comms|datatypes)\.bdmpi\.(ns4\.nr1|ns16\.nr4|nn2\.ns3\.nr1)|job\.p2p_huge\.bdmpi\.(ns4\.nr1|nn2\.ns2\.nr1)|job\.fail_abort\.bdmpi\.ns4\.nr1)$'

# Sets the build directory, the configure arguments and the sanitizers'
# run-time options for `kind` (address means AddressSanitizer together with
# UndefinedBehaviorSanitizer).
bdmpi_sanitize_setup() {
  local kind=$1 sanitizers suffix
  case $kind in
    address) sanitizers=address,undefined suffix=asan ;;
    undefined) sanitizers=undefined suffix=ubsan ;;
    thread) sanitizers=thread suffix=tsan ;;
    *)
      echo "test.sh: --sanitize takes address, undefined or thread, not '$kind'" >&2
      exit 2
      ;;
  esac
  # shellcheck disable=SC2034  # used by common.sh's bdmpi_build
  BDMPI_BUILD_DIR=${BDMPI_SANITIZE_BUILD_DIR:-build-$suffix}
  BDMPI_CMAKE_ARGS="${BDMPI_CMAKE_ARGS:-} -DBDMPI_SANITIZE=$sanitizers -DBDMPI_BUILD_BENCH=OFF"
  local here
  here=$(pwd)
  # A finding fails the program; SIGSEGV stays a signal, as the crash tests
  # (and bdmprun's report of a slave's death) expect. The slow unwinder
  # follows stacks through Open MPI, built without frame pointers, so that
  # lsan.supp recognises its leaks.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:halt_on_error=1:handle_segv=0:handle_abort=0:detect_leaks=1:fast_unwind_on_malloc=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/scripts/sanitizers/lsan.supp:print_suppressions=0}
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}
}
