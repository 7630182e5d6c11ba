#!/usr/bin/env bash
# Idempotent set-up on Debian with Python 3.11: system packages, .venv, the project at the locked versions.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: headless Chromium (offline page check), the WordNet 3.0 database
# and sense index (semantic proxies, offline).
APT_PACKAGES="chromium wordnet-base wordnet-sense-index"
missing=""
for pkg in $APT_PACKAGES; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  echo "setup: installing Debian packages:$missing"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
  "$PYTHON" -m venv .venv
fi
# Reinstall only when the ranges or the lock changed. The lock (requirements-lock.txt: the exact
# versions the book is built and tested with) is given as constraints, so pip installs those.
stamp=.venv/.fireeval-installed
want=$(cat pyproject.toml requirements-lock.txt | sha256sum | cut -d' ' -f1)
# The installer is uv (the same packages as pip, from the same index, byte-compiled as pip does: 39 s instead
# of 110 s here with warm caches, issue 38), pinned here because it is a tool of this script, not a dependency
# of the book; where its wheel cannot be installed, pip does the same install.
UV="uv==0.13.9"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing Python packages into .venv"
  if .venv/bin/python -m pip install -q "$UV"; then
    .venv/bin/uv pip install -q --compile-bytecode --python .venv/bin/python -c requirements-lock.txt -e ".[book,test]"
  else
    echo "setup: $UV could not be installed; installing with pip"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -c requirements-lock.txt -e ".[book,test]"
  fi
  echo "$want" > "$stamp"
fi
# Byte-compile the project (the editable install leaves it as source; with PYTHONDONTWRITEBYTECODE set,
# every `fireeval` command would otherwise re-compile its modules: ~20 ms of start-up).
.venv/bin/python -m compileall -q fireeval >/dev/null
