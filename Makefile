# Front door. `make demo` and `make test` work on a fresh Debian bookworm
# machine: they install what is missing, configure, build and run.
BUILD_DIR ?= build
PRESET ?= default
JOBS ?= $(shell nproc)
CLANG ?= clang++-19
PLUGIN := $(BUILD_DIR)/clang-plugin/cudaperf.so
CUDA_FLAGS := --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version

.PHONY: all deps configure build demo test bench clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake --preset $(PRESET)

configure: $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The plugin over the bundled examples, as a user would run it; then the
# reward daemon over the bundled task variants (DEMO_TASKS=a,b limits them).
DEMO_TASKS ?=
demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target cudaperf cudaperf-features cudaperfd cudaperf-judge cudaperf-worker cudaperf-analysis-server
	@for f in examples/*.cu; do \
	  echo "\$$ $(CLANG) -fsyntax-only $(CUDA_FLAGS) -fplugin=$(PLUGIN) -fplugin-arg-cudaperf-format=text $$f"; \
	  $(CLANG) -fsyntax-only $(CUDA_FLAGS) -fplugin=$(PLUGIN) -fplugin-arg-cudaperf-format=text $$f || exit 1; \
	  echo; \
	done
	scripts/demo-daemon $(BUILD_DIR) $(if $(DEMO_TASKS),--tasks $(DEMO_TASKS))

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

bench: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target cudaperf
	scripts/bench-analysis

clean:
	rm -rf $(BUILD_DIR)
