#!/usr/bin/env bash
# Installs, when missing, the Debian packages the test suite drives: wrk (the benchmark smoke run's load generator;
# those parts skip without it) and chromium (the console's browser tests; they fail without it). Best effort, with
# time limits, and only where apt-get can run (root on Debian/Ubuntu). `npm test` runs it first.
set -uo pipefail
apt_install() {
  local pkg="$1" limit="$2"
  (timeout "$limit" apt-get install -y "$pkg" || (timeout 120 apt-get update && timeout "$limit" apt-get install -y "$pkg")) >/dev/null 2>&1
}
can_apt=0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then can_apt=1; fi
if ! command -v wrk >/dev/null 2>&1 && [ "$can_apt" = 1 ]; then
  echo "installing wrk (Debian package) for the benchmark smoke run…" >&2
  apt_install wrk 120 || echo "warning: wrk could not be installed; the benchmark smoke parts that need it skip" >&2
fi
if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_PATH:-}" ]; then
  if [ "$can_apt" = 1 ]; then
    echo "installing chromium (Debian package) for the console's browser tests…" >&2
    apt_install chromium 300 || true
  fi
  if [ ! -x /usr/bin/chromium ]; then
    echo "warning: chromium is not installed; the console's browser tests will fail (install Debian's chromium, or set CHROMIUM_PATH)" >&2
  fi
fi
exit 0
