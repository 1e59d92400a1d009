#!/usr/bin/env bash
# install.sh — installs what bench/harness needs, from the project's own files:
#   * dynalite (pinned in bench/package.json / package-lock.json) into bench/node_modules
#   * moto's moto_server, exactly the version .ci/moto pins (installed with pip
#     if missing; another installed version stops the script)
#   * the adjl binary, built into bench/out/adjl
# Idempotent; safe to run before every benchmark. Loopback-only servers are
# started later by the harness itself, never here.
set -euo pipefail

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$bench_dir/.." && pwd)"
dynalite_version="4.0.0"

say() { printf 'install.sh: %s\n' "$*"; }

# --- dynalite -------------------------------------------------------------
command -v node >/dev/null || { say "node is required for dynalite (apt-get install nodejs npm)"; exit 1; }
command -v npm >/dev/null || { say "npm is required for dynalite (apt-get install npm)"; exit 1; }
installed=""
if [ -f "$bench_dir/node_modules/dynalite/package.json" ]; then
	installed="$(node -p "require('$bench_dir/node_modules/dynalite/package.json').version")"
fi
if [ "$installed" != "$dynalite_version" ]; then
	say "installing dynalite@$dynalite_version into bench/node_modules"
	# npm ci installs exactly the committed lock file.
	(cd "$bench_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
say "dynalite $(node -p "require('$bench_dir/node_modules/dynalite/package.json').version")"

# --- moto_server ----------------------------------------------------------
moto="$("$root/.ci/moto" install)" || exit 1 # the pinned version, or a message saying how to get it
say "$moto"

# --- adjl -----------------------------------------------------------------
mkdir -p "$bench_dir/out"
if (cd "$root" && go build -o "$bench_dir/out/adjl" .); then
	say "built $bench_dir/out/adjl"
else
	# The harness still measures the references and runs the engine in
	# process; it reports what it had to skip.
	say "WARNING: adjl did not build; CLI-based benchmarks will be skipped"
fi
