# The two commands: `make run ARGS='…'` and `make test`. Both install what is missing first.
PRESET ?= release
ARGS ?= --help
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)

.PHONY: all setup configure build run test test-unit bench docs asan clean

all: build

setup:
	@./scripts/setup.sh

$(BUILD_DIR)/build.ninja:
	cmake --preset $(PRESET)

configure: setup $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	@$(BUILD_DIR)/ouro $(ARGS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600

test-unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -LE browser

bench: build
	@./scripts/setup.sh --bench
	@./bench/run.sh $(BUILD_DIR) $(ARGS)

docs: build
	$(BUILD_DIR)/ouro help api --markdown > docs/reference/api.md

asan:
	$(MAKE) test PRESET=asan

clean:
	rm -rf build
