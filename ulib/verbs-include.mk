# VERBS_INCLUDE=DIR: build against the verbs and kernel uapi headers of
# another distro instead of this one's, e.g. rdma-core 65's.  DIR is laid
# out like /usr/include (libibverbs-dev's infiniband/, linux-libc-dev's
# rdma/ and linux/, its <multiarch>/asm/) and is searched first, as system
# headers: what a host with those packages installed compiles against.
# Included by ulib/Makefile and tests/host/Makefile.
ifneq ($(VERBS_INCLUDE),)
VERBS_MULTIARCH := $(shell $(CC) -print-multiarch)
VERBS_CPPFLAGS := -isystem $(VERBS_INCLUDE) \
	$(if $(wildcard $(VERBS_INCLUDE)/$(VERBS_MULTIARCH)/.),-isystem $(VERBS_INCLUDE)/$(VERBS_MULTIARCH))
endif
