#!/usr/bin/env bash
# Counts the repeated-code pairs in production code (issue 39 acceptance: at most 15).
# A pair counts when BOTH sides lie under src/, domain/ or adapters/, and neither side is
#   adapters/{sqlite,postgres}/schema/ (the two drizzle dialects), adapters/*/migrations/ (generated),
#   nor a test or bench file.
# Usage: scripts/count-repeated-code.sh [--list]   (needs the `duplicates` tool on PATH)
set -euo pipefail
cd "$(dirname "$0")/.."
all=$(timeout 360 duplicates --most 200 --seconds 300)
echo "$all" | head -1 >&2
echo "$all" | grep -E '^incomplete:' >&2 || true
prod() {
  case "$1" in
    src/*|domain/*|adapters/*) ;;
    *) return 1 ;;
  esac
  case "$1" in
    adapters/sqlite/schema/*|adapters/postgres/schema/*|adapters/*/migrations/*) return 1 ;;
    *.test.ts|*/test/*|*/tests/*|*/bench/*|bench/*|test/*) return 1 ;;
  esac
  return 0
}
rows=()
while IFS= read -r line; do
  [[ "$line" =~ ^D[0-9]+\ ([^ :]+):[0-9-]+\ ~\ ([^ :]+):[0-9-]+ ]] || continue
  a="${BASH_REMATCH[1]}"; b="${BASH_REMATCH[2]}"
  if prod "$a" && prod "$b"; then rows+=("$line"); fi
done <<< "$all"
if [[ "${1:-}" == "--list" ]]; then printf '%s\n' "${rows[@]}"; fi
echo "production pairs: ${#rows[@]}"
