# SPDX-License-Identifier: GPL-2.0
#
# softverbs top-level Makefile.
#
#   make               kernel module (against KDIR), libsoftverbs, svctl
#   make kmod          only the module; KDIR=/lib/modules/VER/build to pick
#   make check         every test, in VMs on each installed Debian kernel
#   make demo          build, boot a VM, create devices, show them working
#   make bench         softverbs vs Soft-RoCE side by side: one VM (perftest in
#                      loopback, kernel instructions per message, a size
#                      sweep, scaling, fio over NVMe-oF and NFS/RDMA), then
#                      two VMs on a virtual wire
#                      (SV_BENCH=loop|cost|sweep|scale|ulp|wire|all; SV_BENCH=ab:
#                      this tree against SV_BENCH_AB_BASE, softverbs only)
#   make soak          traffic with data checks under random faults, per
#                      kernel (SV_SOAK_MINUTES, default 30; SV_SOAK_KERNELS;
#                      Documentation/reliability.md)
#   make deb           Debian packages (debian/) in build/deb/
#
# KDIR defaults to the running kernel's build tree if present, else the
# newest installed one (a container's kernel usually has no headers).

KDIR ?= $(shell \
	if [ -d /lib/modules/$$(uname -r)/build ]; then \
		echo /lib/modules/$$(uname -r)/build; \
	else \
		ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1; \
	fi)

.PHONY: all kmod ulib tools check demo clean install dkms-install dkms-remove deb

all: kmod ulib tools

kmod:
	@test -n "$(KDIR)" || { echo "no kernel build tree found: install linux-headers-amd64 or set KDIR" >&2; exit 1; }
	$$(scripts/kbuild-runner.sh $(KDIR) $(CURDIR)) $(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

ulib:
	$(MAKE) -C ulib

tools: ulib
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools; fi

check:
	bash scripts/check.sh

demo:
	bash scripts/demo.sh

# --- bench (scripts/bench.sh) ---
.PHONY: bench
bench:
	bash scripts/bench.sh
# --- end bench ---

# --- soak (scripts/soak.sh; not in make check) ---
.PHONY: soak
soak:
	bash scripts/soak.sh
# --- end soak ---

install: kmod
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $$(basename $$(dirname $$(readlink -f $(KDIR))))

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C ulib clean
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi
	rm -rf build results

# DKMS: install the module source as /usr/src/softverbs-VERSION and build and
# install it for every installed kernel with headers (root only).
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC := /usr/src/softverbs-$(VERSION)

dkms-install:
	-dkms remove softverbs/$(VERSION) --all 2>/dev/null
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)/tests
	cp -r dkms.conf Kbuild kmod uapi $(DKMS_SRC)/
	cp -r tests/kunit $(DKMS_SRC)/tests/
	find $(DKMS_SRC) \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' -o -name config.h \) -delete
	dkms add softverbs/$(VERSION)
	for k in $$(ls /lib/modules); do \
		[ -d /lib/modules/$$k/build ] || continue; \
		dkms build softverbs/$(VERSION) -k $$k && \
		dkms install softverbs/$(VERSION) -k $$k || { \
			cat /var/lib/dkms/softverbs/$(VERSION)/build/make.log 2>/dev/null; \
			exit 1; }; \
	done

dkms-remove:
	-dkms remove softverbs/$(VERSION) --all
	rm -rf $(DKMS_SRC)

# Debian packages: softverbs-dkms, libsoftverbs1, libsoftverbs-dev and
# softverbs-tools, built by debhelper from a copy of the tree (the files git
# knows, tracked or not ignored; all files outside a git checkout) in
# build/deb/softverbs-VERSION, so the tree stays clean; the .debs land in
# build/deb/.  Needs debhelper, dh-dkms, libibverbs-dev, libmnl-dev
# (scripts/deps.sh installs them).
DEB_DIR := build/deb

deb:
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/softverbs-$(VERSION)
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
			cpio -0 -pdm --quiet $(DEB_DIR)/softverbs-$(VERSION); \
	else \
		tar -c --exclude=./build --exclude=./results . | tar -x -C $(DEB_DIR)/softverbs-$(VERSION); \
	fi
	cd $(DEB_DIR)/softverbs-$(VERSION) && dpkg-buildpackage -b -us -uc
	ls -l $(DEB_DIR)/*.deb
