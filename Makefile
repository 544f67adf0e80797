# SPDX-License-Identifier: GPL-2.0
#
# Top-level targets. `make help` lists them.
#
# The module is built out of tree, once per kernel, in build/<kernel release>/
# (a copy of the module sources, so two kernels never share object files).

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build

ifdef KDIR
KVER := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
else
KVER ?= $(shell $(TOP)/tests/tools/kernels.sh --default)
KDIR := /lib/modules/$(KVER)/build
endif
ALL_KVERS = $(shell $(TOP)/tests/tools/kernels.sh)

SROCE_DIR := drivers/infiniband/sw/sroce
MODULE_SOURCES := Kbuild $(shell find drivers include -name '*.[ch]' -o -name Kbuild -o -name Kconfig 2>/dev/null)
KMOD_SOURCES := $(wildcard tests/kmod/Kbuild tests/kmod/*.c)
PREFIX ?= /usr
LIBDIR ?= $(PREFIX)/lib/$(shell gcc -print-multiarch)
DESTDIR ?=

export SROCE_TOP := $(TOP)

.PHONY: all module modules-all provider install uninstall setup check check-debug \
	check-full run sparse clean help bench fuzz

all: module provider

help:
	@echo "make            build sroce.ko for KDIR/KVER (default: running or newest kernel) and the provider"
	@echo "make run        set up, build, boot a stock kernel in QEMU (2 vCPUs), create sroce0, ping-pong on it and on rdma_rxe"
	@echo "make check      set up, build for every supported kernel, run every test; last line N passed, N failed"
	@echo "make check-debug  the VM suite under the KASAN/lockdep/kmemleak test kernel"
	@echo "make sparse     build the module with sparse (C=2: every file, not only recompiled ones)"
	@echo "make fuzz       the header-codec fuzzer (libFuzzer + ASan/UBSan) for FUZZ_SECONDS (default 300)"
	@echo "make bench      perftest on rdma_rxe and sroce in the same guests, ratios in bench/results/"
	@echo "                (KVER=6.12 for 6.12, QUICK=1 smoke run, TOPOLOGY=loopback|link, CPUS=1|2 (default 2), POINTS=regex, PARALLEL=1,"
	@echo "                LINK_MTU=9000: link guests' eth0 MTU, path MTU 4096)"
	@echo "make install    install module (+depmod), provider and /etc/libibverbs.d/sroce.driver"

setup:
	@$(TOP)/tests/tools/setup.sh

# module-<kver>: build sroce.ko for one installed kernel with W=1, and every
# header of the driver on its own (HDRTEST lines); then the kernel-verbs
# test module (tests/kmod/, loaded only by tests/vm/tests/kverbs.sh) in
# build/<kver>/kmod/. Kbuild leaves the module in
# $(SROCE_DIR)/; the copy in build/<kver>/ is what the tests load. Sources
# deleted from the repo are deleted from the copy too (a stale header would
# still be compiled on its own).
# CONFIG_SROCE_KUNIT_TEST=y on the command line links the KUnit suites in
# (only for a kernel with CONFIG_KUNIT: tests/kunit/kernel.sh does it).
module: module-$(KVER)

modules-all:
	@set -e; for v in $(ALL_KVERS); do $(MAKE) --no-print-directory module-$$v; done

module-%: $(MODULE_SOURCES) $(KMOD_SOURCES)
	@mkdir -p $(BUILD)/$*
	@cd $(BUILD)/$* && for f in $$(find drivers include -name '*.[ch]' 2>/dev/null); do \
		[ -e $(TOP)/$$f ] || rm -f $$f; done
	@cp -a Kbuild drivers include $(BUILD)/$*/
	$(MAKE) -C $(if $(filter $*,$(KVER)),$(KDIR),/lib/modules/$*/build) M=$(BUILD)/$* W=1 $(KBUILD_EXTRA) modules
	@cp $(BUILD)/$*/$(SROCE_DIR)/sroce.ko $(BUILD)/$*/sroce.ko
	@mkdir -p $(BUILD)/$*/kmod && cp -a $(KMOD_SOURCES) $(BUILD)/$*/kmod/
	$(MAKE) -C $(if $(filter $*,$(KVER)),$(KDIR),/lib/modules/$*/build) M=$(BUILD)/$*/kmod W=1 $(KBUILD_EXTRA) modules

fuzz:
	@bash $(TOP)/tests/fuzz/run.sh $(or $(FUZZ_SECONDS),300)

sparse:
	@$(MAKE) --no-print-directory module-$(KVER) KBUILD_EXTRA="C=2"

provider:
	@$(MAKE) --no-print-directory -C rdma-core-provider O=$(BUILD)/provider

# The module goes to lib/modules/<kver>/updates/$(SROCE_DIR)/ under DESTDIR;
# an older install left its copy in updates/ itself, where depmod would find
# two sroce.ko.
install: module provider
	rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/sroce.ko*
	$(MAKE) -C $(KDIR) M=$(BUILD)/$(KVER) INSTALL_MOD_DIR=updates \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)
	$(MAKE) --no-print-directory -C rdma-core-provider O=$(BUILD)/provider \
		DESTDIR=$(DESTDIR) LIBDIR=$(LIBDIR) install

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/$(SROCE_DIR)/sroce.ko* \
		$(DESTDIR)/lib/modules/$(KVER)/updates/sroce.ko*
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)
	$(MAKE) --no-print-directory -C rdma-core-provider DESTDIR=$(DESTDIR) LIBDIR=$(LIBDIR) uninstall

# run: the demo on 2 vCPUs (a ping-pong of two busy-polling processes on one
# vCPU measures the scheduler); -s keeps the build quiet unless it warns; the
# console shows the demo's lines, the guest's kernel log stays in the log file.
run: setup
	@$(MAKE) --no-print-directory -s module provider
	@$(TOP)/tests/vm/vm-run --kernel $(KVER) --cpus 2 --interactive-log $(TOP)/tests/vm/demo.sh | \
		awk -f $(TOP)/tests/vm/demo-console.awk; exit $${PIPESTATUS[0]}

check: setup
	@$(TOP)/tests/tools/check.sh

# bench: 6.1 unless KVER is given on the command line or in the environment.
BENCH_KVER = $(if $(filter command line environment,$(origin KVER)),$(KVER))
bench: setup
	@$(TOP)/tests/bench/bench.sh $(if $(BENCH_KVER),--kernel $(BENCH_KVER)) \
		$(if $(filter-out 0,$(QUICK)),--quick) $(if $(TOPOLOGY),--topology $(TOPOLOGY)) \
		$(if $(CPUS),--cpus $(CPUS)) $(if $(REPS),--reps $(REPS)) \
		$(if $(POINTS),--points '$(POINTS)') $(if $(filter-out 0,$(PARALLEL)),--parallel) \
		$(if $(BUDGET),--budget $(BUDGET)) $(if $(LINK_MTU),--link-mtu $(LINK_MTU))

check-debug: setup
	@$(TOP)/tests/tools/check.sh --debug

check-full: setup
	@$(TOP)/tests/tools/check.sh --full

clean:
	rm -rf $(BUILD)
	@$(MAKE) --no-print-directory -C rdma-core-provider O=$(BUILD)/provider clean || true
