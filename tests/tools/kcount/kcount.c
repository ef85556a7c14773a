// SPDX-License-Identifier: GPL-2.0
/*
 * kcount: a QEMU TCG plugin that counts the guest's instructions, those run
 * in kernel mode (virtual address in the upper half) and all of them, and
 * writes the two totals each time the guest executes the marker instruction
 * "xchg %bx,%bx" (66 87 db; mark.c).  make bench's SV_BENCH=cost part
 * (scripts/bench-cost.sh) turns the marks into instructions per message;
 * Documentation/performance.md says how.
 *
 *   qemu-system-x86_64 -accel tcg,thread=single ... -plugin kcount.so,out=FILE
 *
 * FILE gets "kcount SEQ KERNEL ALL STRITER STRBYTES" per marker executed
 * (SEQ from 1) and "kcount-end KERNEL ALL" when qemu exits.  STRITER and
 * STRBYTES are the kernel's rep-prefixed string instructions (movs, stos,
 * lods, cmps, scas): iterations run, each counted once in KERNEL as TCG
 * runs it, and the bytes they covered (operand size per iteration), so a
 * reader can tell a copy by rep movsb (1 byte an instruction) from one by
 * rep movsq (8).  With blocks=FILE2 as well, each
 * kernel block gets a counter of its own, and at each marker FILE2 gets
 * "SEQ VADDR INSNS" for every kernel block that ran since the marker before
 * (VADDR its first instruction's address in hex, INSNS its instructions
 * executed since then), for attributing counts to functions.
 *
 * Counting is per translation block: each block adds its length to ALL, and
 * to KERNEL when it lies in the upper half, as it starts.  A block that an
 * exception leaves early (a page fault) is counted whole; interrupts arrive
 * between blocks.  The counters are plain adds in the generated code, exact
 * only with one TCG thread (thread=single) for all vCPUs.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The part of QEMU 7.2's plugin API (version 1, include/qemu/qemu-plugin.h)
 * used here, declared by hand: Debian ships no qemu-plugin.h.  The
 * functions are exported by qemu-system-*; the layouts must match 7.2's.
 */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

#define KCOUNT_EXPORT __attribute__((visibility("default")))

KCOUNT_EXPORT int qemu_plugin_version = 1;

static uint64_t kernel_insns, all_insns, marks, str_iters, str_bytes;
static FILE *out;

/*
 * blocks=: one counter per translated kernel block, never freed (a block
 * translated again gets another).  Translation and execution run on the one
 * TCG thread, so the list needs no lock.
 */
struct block {
	uint64_t execs;		/* the inline add's target */
	uint64_t reported;	/* execs at the last marker */
	uint64_t vaddr;
	uint64_t insns;
	struct block *next;
};
static struct block *blocks;
static FILE *blocks_out;

static void report_blocks(void)
{
	struct block *b;

	for (b = blocks; b; b = b->next) {
		if (b->execs == b->reported)
			continue;
		fprintf(blocks_out, "%llu %llx %llu\n", (unsigned long long)marks,
			(unsigned long long)b->vaddr,
			(unsigned long long)((b->execs - b->reported) * b->insns));
		b->reported = b->execs;
	}
	fflush(blocks_out);
}

static const unsigned char marker[] = { 0x66, 0x87, 0xdb };	/* xchg %bx,%bx */

static void on_mark(unsigned int vcpu_index, void *userdata)
{
	(void)vcpu_index;
	(void)userdata;
	fprintf(out, "kcount %llu %llu %llu %llu %llu\n", (unsigned long long)++marks,
		(unsigned long long)kernel_insns, (unsigned long long)all_insns,
		(unsigned long long)str_iters, (unsigned long long)str_bytes);
	fflush(out);
	if (blocks_out)
		report_blocks();
}

/*
 * The operand size of @insn if it is a rep-prefixed string instruction,
 * else 0.  Prefixes: legacy ones (operand size 66, rep F3/F2, segment,
 * address size 67) in any order, then at most one REX (40-4F) right
 * before the opcode.
 */
static unsigned int rep_string_size(const unsigned char *p, size_t len)
{
	bool rep = false, opsize = false, rexw = false;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char b = p[i];

		if (b == 0xf3 || b == 0xf2)
			rep = true;
		else if (b == 0x66)
			opsize = true;
		else if (b == 0x67 || b == 0x2e || b == 0x36 || b == 0x3e ||
			 b == 0x26 || b == 0x64 || b == 0x65)
			continue;
		else
			break;
	}
	if (i < len && (p[i] & 0xf0) == 0x40) {
		rexw = p[i] & 0x08;
		i++;
	}
	if (!rep || i >= len || p[i] < 0xa4 || p[i] > 0xaf ||
	    p[i] == 0xa8 || p[i] == 0xa9)	/* test al/ax, imm */
		return 0;
	if (!(p[i] & 1))
		return 1;			/* the byte forms */
	return rexw ? 8 : opsize ? 2 : 4;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &all_insns, n);
	/* x86-64: the kernel lives in the upper half, user space in the lower */
	if (qemu_plugin_tb_vaddr(tb) >> 63) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &kernel_insns, n);
		if (blocks_out) {
			struct block *b = calloc(1, sizeof(*b));

			if (!b)
				abort();
			b->vaddr = qemu_plugin_tb_vaddr(tb);
			b->insns = n;
			b->next = blocks;
			blocks = b;
			qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
		}
		/* TCG runs a rep string instruction once per iteration */
		for (i = 0; i < n; i++) {
			struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
			unsigned int size = rep_string_size(qemu_plugin_insn_data(insn),
							    qemu_plugin_insn_size(insn));

			if (!size)
				continue;
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &str_iters, 1);
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &str_bytes, size);
		}
		return;
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(marker) &&
		    !memcmp(qemu_plugin_insn_data(insn), marker, sizeof(marker)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
	(void)id;
	(void)userdata;
	fprintf(out, "kcount-end %llu %llu\n", (unsigned long long)kernel_insns,
		(unsigned long long)all_insns);
	fclose(out);
	if (blocks_out)
		fclose(blocks_out);
}

KCOUNT_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *path = NULL, *blocks_path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "blocks=", 7)) {
			blocks_path = argv[i] + 7;
		} else {
			fprintf(stderr, "kcount: unknown argument %s (out=FILE, blocks=FILE)\n", argv[i]);
			return -1;
		}
	}
	if (!info->system_emulation || !path) {
		fprintf(stderr, "kcount: a system emulator and out=FILE are needed\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	if (blocks_path) {
		blocks_out = fopen(blocks_path, "w");
		if (!blocks_out) {
			perror(blocks_path);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
