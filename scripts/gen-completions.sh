#!/usr/bin/env bash
# gen-completions.sh regenerates completions/adjl.{bash,zsh,fish,ps1} from
# `adjl completion`. The scripts are cobra's dynamic ones: at completion time
# they ask `adjl __complete`, which reads the user's schema, so the relation
# verbs of whatever schema is in use (enroll, members, follow, ...) are
# offered. They are the same for every schema; e2e/completions_test.go checks
# that, and that the committed files are current.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p completions
declare -A ext=([bash]=bash [zsh]=zsh [fish]=fish [powershell]=ps1)
for sh in bash zsh fish powershell; do
	go run . --schema examples/school.yaml completion "$sh" >"completions/adjl.${ext[$sh]}"
done
ls -l completions
