#!/usr/bin/env bash
# Creates .venv-openram, OpenRAM's own venv (OpenRAM 1.2.48 needs numpy<2, which the
# project venv must not be pinned to), and the stub conda `activate` OpenRAM sources
# around every SPICE call even with use_conda = False (docs/sram.md, "Pitfalls").
# Installs Debian's ngspice when missing (as synth/install_tools.sh does). Idempotent:
# a finished venv (stamp file) and an existing stub are left alone.
set -eu
PYTHON=${PYTHON:-python3.11}
VENV=${1:-.venv-openram}
STAMP="$VENV/.installed-openram-1.2.48"

if ! command -v ngspice >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian package: ngspice"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ngspice) >/dev/null 2>&1 \
      || { echo "error: apt-get install ngspice failed"; exit 2; }
  else
    echo "error: missing Debian package: run 'sudo apt-get install ngspice'"; exit 2
  fi
fi

if [ ! -f "$STAMP" ]; then
  command -v "$PYTHON" >/dev/null || { echo "error: $PYTHON not found: install Python 3.11"; exit 2; }
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q "openram==1.2.48" "numpy<2"
  touch "$STAMP"
fi

# OpenRAM runs `source <openram package>/miniconda/bin/activate && <spice> && conda
# deactivate`; the stub makes `conda` a no-op so the ngspice on PATH runs.
PKG=$("$VENV/bin/python" -c 'import os, importlib.util as u; print(os.path.dirname(u.find_spec("openram").origin))')
STUB="$PKG/miniconda/bin/activate"
if [ ! -f "$STUB" ]; then
  mkdir -p "$(dirname "$STUB")"
  printf '%s\n' '# termwise stub: OpenRAM sources this around SPICE calls; conda is not used.' \
    'conda() { :; }' > "$STUB"
fi
echo "$VENV ready (openram $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("openram"))'))"
