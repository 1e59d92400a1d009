#!/usr/bin/env bash
# readme-quickstart.sh prints the quickstart command from README.md: the first
# ```sh block after the <!-- quickstart --> marker. .ci/run runs exactly what
# this prints, so the README's one-line quickstart cannot rot.
set -euo pipefail
cd "$(dirname "$0")/.."
awk '
	/<!-- quickstart -->/ { armed = 1; next }
	armed && /^```sh/     { inside = 1; next }
	inside && /^```/      { exit }
	inside                { print }
' README.md | sed 's/^\$ //'
