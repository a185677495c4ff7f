#!/usr/bin/env bash
# install-chromium.sh: install Debian's chromium package when /usr/bin/chromium
# (or $BYREF_CHROMIUM) is missing. The browser package's tests need it; CI runs
# this before `make test`. Safe to run repeatedly.
set -euo pipefail

bin="${BYREF_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$bin" ]; then
	echo "chromium: $bin present ($("$bin" --version 2>/dev/null || echo 'version unknown'))"
	exit 0
fi

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium"
if [ "$(id -u)" -ne 0 ]; then
	echo "chromium: $bin is missing; run as root:" >&2
	echo "  sudo sh -c '$cmd'" >&2
	exit 1
fi

apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
"$bin" --version
