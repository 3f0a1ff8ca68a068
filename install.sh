#!/usr/bin/env bash
# Installs homesim and everything it needs on a fresh Debian machine: the EGL + Mesa libraries that
# headless OpenGL rendering uses, Chromium (the browser tests drive it; none can be downloaded) and
# PostgreSQL (the challenge server's tests run against a real one), each skipped where present or where we
# may not install system packages; then the package with its pinned Python dependencies.
set -euo pipefail
cd "$(dirname "$0")"
missing=$(for p in libegl1 libgl1-mesa-dri chromium postgresql; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
    else
        echo "homesim: missing system packages: $missing (install them as root: rendering needs libegl1 and"\
            "libgl1-mesa-dri, the browser tests chromium, the PostgreSQL tests postgresql); the rest works without" >&2
    fi
fi
if [ -z "${VIRTUAL_ENV:-}" ]; then
    echo "homesim: installing into $(command -v python3) (no virtual environment is active; see the README)" >&2
fi
python3 -m pip install -q -e ".[test]"
# ALFWorld's own expert (for ALFWorld scripts and tests/test_alfworld_expert.py) with what its import needs,
# pinned in pyproject's [tool.homesim]; --no-deps leaves out the heavy requirements it never uses (see there)
python3 -m pip install -q --no-deps $(python3 -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["tool"]["homesim"]["alfworld-client"])')
