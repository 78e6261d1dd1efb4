#!/usr/bin/env bash
# Installs what `npm run bench` needs beyond the tests' Debian packages: the unbound daemon
# (package `unbound`), the caching resolver on loopback that node:dns and the npm `sip` stack ask
# in the warm tables. The bench starts its own daemon in a scratch folder, so the package's own
# service is kept from starting (policy-rc.d) and never listens on port 53.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh

if [ -x /usr/sbin/unbound ]; then
  echo "bench packages: all present (unbound)"
  exit 0
fi
echo "bench packages: installing unbound"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
policy=/usr/sbin/policy-rc.d
placed_policy=no
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod +x "$policy"
  placed_policy=yes
fi
trap '[ "$placed_policy" = yes ] && $sudo rm -f "$policy"' EXIT
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends unbound
