#!/usr/bin/env bash
# Installs the Debian packages dnscore's tests use, only those that are missing:
# gcc, libc6-dev and libunbound-dev (to build @dnscore/resolver-unbound's libunbound addon),
# dns-root-data (the root trust anchors in /usr/share/dns/root.ds, which libunbound only
# recommends), nsd (authoritative server on loopback),
# ldnsutils (signs test zones), bind9-dnsutils (dig), sip-tester (sipp, the SIP peer),
# openssl (test certificates for TLS targets), chromium (the browser tests of `dnscore serve`,
# driven by playwright-core through /usr/bin/chromium; no browser is downloaded), redis-server
# (the shared penalty box's store).
set -euo pipefail

packages=(gcc libc6-dev libunbound-dev dns-root-data nsd ldnsutils bind9-dnsutils sip-tester openssl chromium
  redis-server)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present (${packages[*]})"
  exit 0
fi
echo "system packages: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
