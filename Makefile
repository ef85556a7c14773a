# SPDX-License-Identifier: GPL-2.0
#
# softverbs top-level Makefile.
#
#   make               kernel module (against KDIR), libsoftverbs, svctl
#   make kmod          only the module; KDIR=/lib/modules/VER/build to pick
#   make check         every test, in VMs on each installed Debian kernel
#   make demo          build, boot a VM, create devices, show them working
#
# KDIR defaults to the running kernel's build tree if present, else the
# newest installed one (a container's kernel usually has no headers).

KDIR ?= $(shell \
	if [ -d /lib/modules/$$(uname -r)/build ]; then \
		echo /lib/modules/$$(uname -r)/build; \
	else \
		ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1; \
	fi)

.PHONY: all kmod ulib tools check demo clean install dkms-install

all: kmod ulib tools

kmod:
	@test -n "$(KDIR)" || { echo "no kernel build tree found: install linux-headers-amd64 or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

ulib:
	$(MAKE) -C ulib

tools: ulib
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools; fi

check:
	bash scripts/check.sh

demo:
	bash scripts/demo.sh

install: kmod
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $$(basename $$(dirname $$(readlink -f $(KDIR))))

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C ulib clean
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi
	rm -rf build results
