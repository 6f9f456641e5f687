#!/usr/bin/env bash
# mypy over the package as it installs: `solver/` is `tacocat` and `cli/` is
# `tacocat.cli` (pyproject [tool.setuptools.package-dir]), so mypy cannot find
# it by name from the source tree.  Stage it: build/mypy/tacocat/ holds a
# symlink to every entry of solver/ plus cli -> ../../../cli, then check
# `-p tacocat` with the settings in pyproject [tool.mypy].  Extra arguments go
# to mypy (e.g. .ci/mypy.sh --no-incremental).
set -euo pipefail
cd "$(dirname "$0")/.."
stage=build/mypy/tacocat
rm -rf "$stage"
mkdir -p "$stage"
for entry in solver/*; do
    ln -sfn "../../../$entry" "$stage/$(basename "$entry")"
done
ln -sfn ../../../cli "$stage/cli"
MYPYPATH=build/mypy exec mypy -p tacocat "$@"
