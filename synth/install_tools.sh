#!/usr/bin/env bash
# Installs the Debian packages the flow needs when they are missing: opensta (binary `sta`),
# qflow-tech-osu018 (the OSU 0.18um liberty), ccache (faster Verilator rebuilds) and
# liblz4-dev (Verilator's FST waveform writer, for WAVES=1), and chromium (the browser
# test of report.html, driven by Playwright; tests/gen/test_report_html.py skips without it).
set -u
missing=()
command -v sta >/dev/null || missing+=(opensta)
[ -f /usr/share/qflow/tech/osu018/osu018_stdcells.lib ] || missing+=(qflow-tech-osu018)
command -v ccache >/dev/null || missing+=(ccache)
[ -f /usr/include/lz4.h ] || missing+=(liblz4-dev)
command -v chromium >/dev/null || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian packages: ${missing[*]}"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1 \
    || { echo "error: apt-get install ${missing[*]} failed"; exit 2; }
else
  echo "error: missing Debian packages: run 'sudo apt-get install ${missing[*]}'"; exit 2
fi
