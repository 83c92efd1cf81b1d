#!/usr/bin/env bash
# Portability check (run by .ci/run): the tests that read external fixtures pass from a clone of HEAD in an
# unrelated directory, with only `shared/fixtures` beside that clone. When run as root, the original
# shared/fixtures is hidden under an empty mount in a private mount namespace, so neither an absolute path nor
# a path counted up from this checkout can still find the fixtures. The tests are those importing
# server/social/testing/fixtures.ts, directly or not (`vitest related`); node_modules is this checkout's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fixtures=$(cd "$root/../shared/fixtures" && pwd -P)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
clone="$scratch/some/other/place/homeport"
git clone -q "$root" "$clone"
mkdir -p "$clone/../shared"
cp -r "$fixtures" "$clone/../shared/fixtures"
ln -s "$root/node_modules" "$clone/node_modules"
cd "$clone"
tests=(env -u HOMEPORT_FIXTURES NO_COLOR=1 node_modules/.bin/vitest related server/social/testing/fixtures.ts --run)
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
  echo "portability: fixture tests from $clone, $fixtures hidden"
  unshare -m -- sh -c 'mount --make-rprivate / && mount -t tmpfs none "$1" && shift && exec "$@"' sh "$fixtures" "${tests[@]}"
else
  echo "portability: fixture tests from $clone (not root: $fixtures stays visible)"
  "${tests[@]}"
fi
