#!/usr/bin/env sh
# The same, with the interpreter found in PATH by env.
exec "$@"
