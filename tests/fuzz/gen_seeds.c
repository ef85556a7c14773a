// SPDX-License-Identifier: GPL-2.0
/*
 * The seed corpora of the fuzz targets, built at run time (nothing binary
 * is kept in the tree):
 *
 *   gen_seeds OUTDIR [REGRESS_DIR]
 *
 * OUTDIR/hdr: for every opcode of the IBTA model (ibta_model.h: RC, UC,
 * UD, CNP) a valid RoCEv2 packet, BTH .. ICRC, laid out by hand from IBTA
 * 9.2 and 9.3, for each payload length class its position allows (path
 * MTUs for First/Middle, 0..4096 for Last/Only, 8 for ATOMIC WRITE); the
 * same packets as RoCE v1 frames (GRH in front, some with link padding
 * behind); and one packet per class of defect the parser tells apart.
 *
 * OUTDIR/wqe: send WQEs of every user opcode on RC, UC and UD QPs (SGEs,
 * inline data, the ATOMIC WRITE value, a FLUSH range), receive WQEs, in
 * the user ABI layout (uapi/softverbs-abi.h as user space sees it), behind
 * fuzz_wqe.c's four configuration bytes.
 *
 * REGRESS_DIR/{hdr,wqe}-NAME.hex: inputs that once found a bug, as hex
 * text ('#' starts a comment), copied into OUTDIR/{hdr,wqe}/regress-NAME.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "softverbs-abi.h"
#include "ibta_model.h"

static const char *outdir;
static unsigned int nseeds;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "gen_seeds: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void put(const char *dir, const void *buf, size_t len,
		const char *fmt, ...)
{
	char name[200], path[4096];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		die("cannot write %s", path);
	nseeds++;
}

static void be16(uint8_t *p, uint32_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void be24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	be16(p + 1, v);
}

static void be32(uint8_t *p, uint32_t v)
{
	be16(p, v >> 16);
	be16(p + 2, v);
}

static void be64(uint8_t *p, uint64_t v)
{
	be32(p, v >> 32);
	be32(p + 4, v);
}

/*
 * A packet of @op with @paylen payload bytes at @p (room for the largest),
 * headers filled with distinct values; @n varies the flags.  Its length.
 */
static size_t build(uint8_t *p, const struct m_op *op, unsigned int paylen,
		    unsigned int n)
{
	unsigned int pad = -paylen & 3, hdr = m_hdr_len(op), i;
	uint8_t *x;

	memset(p, 0, hdr);
	/* BTH (9.2): SE only where it means something, M, pad, TVer 0 */
	p[0] = op->opcode;
	p[1] = (op->pos >= M_LAST && n % 2 ? 0x80 : 0) | (n % 3 ? 0 : 0x40) |
	       pad << 4;
	be16(p + 2, n % 5 ? 0xffff : 0x7fff);		/* P_Key */
	be32(p + 4, (n % 4) << 30 | (0x11 + n));	/* FECN BECN, QPN */
	be32(p + 8, (n % 2) << 31 | (0xfffff0 + n) % 0x1000000); /* A, PSN */
	if (m_has(op, M_FETH)) {
		x = p + m_ext_off(op, M_FETH);
		be32(x, (n % 2 ? 1 : 3) | (n % 2) << 4);	/* PLT, SEL */
	}
	if (m_has(op, M_DETH)) {
		x = p + m_ext_off(op, M_DETH);
		be32(x, 0x80010000U + n);			/* Q_Key */
		be24(x + 5, 0x000001 + n);			/* SrcQP */
	}
	if (m_has(op, M_RETH)) {
		x = p + m_ext_off(op, M_RETH);
		be64(x, 0x00007f0012340000ULL + 64 * n);	/* VA */
		be32(x + 8, 0x00001234 + n);			/* R_Key */
		be32(x + 12, paylen ? paylen : 65536);		/* DMA length */
	}
	if (m_has(op, M_ATMETH)) {
		x = p + m_ext_off(op, M_ATMETH);
		be64(x, 0x00007f0012340008ULL);
		be32(x + 8, 0x00005678);
		be64(x + 12, 0x1111111111111111ULL * (n % 15 + 1));
		be64(x + 20, 0xfedcba9876543210ULL);
	}
	if (m_has(op, M_AETH)) {
		x = p + m_ext_off(op, M_AETH);
		/* ACK with each credit code, an RNR NAK, NAKs */
		x[0] = n % 4 == 3 ? 0x60 | n % 5 : n % 4 == 2 ? 0x20 | n % 32 :
		       n % 32;
		be24(x + 1, 0x000100 + n);			/* MSN */
	}
	if (m_has(op, M_ATMACK))
		be64(p + m_ext_off(op, M_ATMACK), 0x0123456789abcdefULL);
	if (m_has(op, M_IMMDT))
		be32(p + m_ext_off(op, M_IMMDT), 0xdeadbeef);
	if (m_has(op, M_IETH))
		be32(p + m_ext_off(op, M_IETH), 0x00abcd01);
	for (i = 0; i < paylen + pad; i++)
		p[hdr + i] = i < paylen ? (uint8_t)(i * 7 + n) : 0;
	be32(p + hdr + paylen + pad, 0x12345678 + n);	/* ICRC: not checked */
	return hdr + paylen + pad + M_ICRC_BYTES;
}

/* @p: room for M_GRH_BYTES; the GRH of a v1 frame of @paylen bytes */
static void build_grh(uint8_t *p, unsigned int paylen, unsigned int n)
{
	unsigned int i;

	be32(p, 6U << 28 | (n % 4) << 22 | (n * 0x1111 & 0xfffff));
	be16(p + 4, paylen);
	p[6] = 0x1b;			/* NxtHdr: IBA transport */
	p[7] = 64;
	for (i = 0; i < 16; i++) {	/* fe80::n and fe80::2 */
		p[8 + i] = i == 0 ? 0xfe : i == 1 ? 0x80 : i == 15 ? n : 0;
		p[24 + i] = i == 0 ? 0xfe : i == 1 ? 0x80 : i == 15 ? 2 : 0;
	}
}

static void hdr_seeds(void)
{
	static const unsigned int mtu[] = { 256, 1024, 4096 };
	static const unsigned int any[] = { 0, 1, 3, 4, 256, 4096 };
	static uint8_t pkt[M_GRH_BYTES + 4200], bad[64];
	unsigned int i, j, n = 0, nl, v1_pad;
	const unsigned int *lens;
	size_t len;

	for (i = 0; i < M_NUM_OPS; i++) {
		const struct m_op *op = &m_ops[i];
		unsigned int eight = 8, zero = 0;

		switch (op->payload) {
		case M_PL_MTU:
			lens = mtu, nl = 3;
			break;
		case M_PL_ANY:
			lens = any, nl = 6;
			break;
		case M_PL_EIGHT:
			lens = &eight, nl = 1;
			break;
		default:
			lens = &zero, nl = 1;
			break;
		}
		for (j = 0; j < nl; j++, n++) {
			len = build(pkt, op, lens[j], n);
			put("hdr", pkt, len, "v2-%02x-%s-%u", op->opcode,
			    op->name, lens[j]);
		}
		/* RoCE v1: the smallest of them behind a GRH */
		len = build(pkt + M_GRH_BYTES, op, lens[0], n);
		build_grh(pkt, len, n);
		/* Ethernet pads a frame to 60 bytes: 46 after its header */
		v1_pad = M_GRH_BYTES + len < 46 ? 46 - M_GRH_BYTES - len :
			 i % 4 == 0 ? 2 : 0;
		memset(pkt + M_GRH_BYTES + len, 0, v1_pad);
		put("hdr", pkt, M_GRH_BYTES + len + v1_pad, "v1-%02x-%s",
		    op->opcode, op->name);
	}

	/* one per class of defect (sv_hdr_parse's and sv_hdr_parse_grh's) */
	len = build(bad, m_op_find(0x11), 0, 0);	/* RC ACK, 20 bytes */
	put("hdr", bad, 15, "bad-short");
	bad[1] |= 1;					/* TVer 1 */
	put("hdr", bad, len, "bad-tver");
	bad[1] &= ~0x0f;
	bad[0] = 0x15;					/* reserved opcode */
	put("hdr", bad, len, "bad-opcode");
	bad[0] = 0x4a;					/* RD: not spoken */
	put("hdr", bad, len, "bad-rd");
	bad[0] = 0x0a;					/* WRITE Only: RETH */
	put("hdr", bad, len, "bad-truncated");
	bad[0] = 0x11;
	put("hdr", bad, len + 2, "bad-unaligned");
	bad[1] |= 0x30;					/* pad 3, no payload */
	put("hdr", bad, len, "bad-pad");
	bad[1] &= ~0x30;
	len = build(pkt, m_op_find(0x04), 4100, 0);	/* SEND Only */
	put("hdr", pkt, len, "bad-too-long");
	len = build(pkt, m_op_find(0x00), 300, 0);	/* SEND First */
	put("hdr", pkt, len, "bad-not-mtu");
	len = build(pkt, m_op_find(0x1d), 16, 0);	/* ATOMIC WRITE */
	put("hdr", pkt, len, "bad-atomic-write-16");
	len = build(pkt + M_GRH_BYTES, m_op_find(0x11), 0, 0);
	build_grh(pkt, len + 4, 0);			/* PayLen too long */
	put("hdr", pkt, M_GRH_BYTES + len, "bad-grh-paylen");
	build_grh(pkt, len, 0);
	pkt[0] = 0x45;					/* an IPv4 header */
	put("hdr", pkt, M_GRH_BYTES + len, "bad-grh-ipv4");
}

/* fuzz_wqe.c's input: four configuration bytes, then the slot */
static void put_wqe(const uint8_t cfg[4], const void *slot, size_t len,
		    const char *name)
{
	static uint8_t buf[4 + 1024];

	memcpy(buf, cfg, 4);
	memcpy(buf + 4, slot, len);
	put("wqe", buf, 4 + len, "%s", name);
}

static void wqe_seeds(void)
{
	/* IBV_WR_*: the uapi numbers, 14 FLUSH, 15 ATOMIC WRITE, 0x20 REG_MR */
	static const uint32_t ops[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14,
					15, 0x20 };
	static const char *const qpts[] = { "rc", "uc", "ud" };
	/* room for 8 SGEs or 128 inline bytes behind each WQE */
	static union {
		struct sv_send_wqe	w;
		uint8_t			b[sizeof(struct sv_send_wqe) + 128];
	} s;
	static union {
		struct sv_recv_wqe	w;
		uint8_t			b[sizeof(struct sv_recv_wqe) + 64];
	} r;
	struct sv_send_wqe *w = &s.w;
	unsigned int t, i, inl;
	uint8_t cfg[4];
	char name[64];

	for (t = 0; t < 3; t++) {
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			for (inl = 0; inl < 2; inl++) {
				memset(&s, 0, sizeof(s));
				cfg[0] = t << 1;	/* send WQE, QP type */
				cfg[1] = 4;		/* max_send_sge */
				cfg[2] = 64;		/* max_inline_data */
				cfg[3] = 0;
				w->wr.wr_id = 0x1000 + i;
				w->wr.opcode = ops[i];
				w->wr.send_flags = 2 | (inl ? 8 : 0);
				w->wr.wr.rdma.remote_addr = 0x7f0012340000ULL;
				w->wr.wr.rdma.rkey = 0x1234;
				w->iova = w->wr.wr.rdma.remote_addr;
				if (ops[i] == 14) {		/* FLUSH */
					w->wr.wr.flush.type = 1;
					w->wr.wr.flush.level = 0;
					w->dma.length = 4096;
				} else if (ops[i] == 15) {	/* ATOMIC WRITE */
					w->dma.length = 8;
					memcpy(w->dma.atomic_wr,
					       "\1\2\3\4\5\6\7\10", 8);
				} else if (inl) {
					w->dma.length = 16;
					memset(w->dma.inline_data, 0xab, 16);
				} else {
					w->dma.num_sge = 2;
					w->dma.sge[0].addr = 0x7f0000001000ULL;
					w->dma.sge[0].length =
						ops[i] == 5 || ops[i] == 6 ? 8 : 64;
					w->dma.sge[0].lkey = 0x100;
					w->dma.sge[1].addr = 0x7f0000002000ULL;
					w->dma.sge[1].lkey = 0x100;
				}
				if (t == 2) {
					w->wr.wr.ud.remote_qpn = 0x12;
					w->wr.wr.ud.remote_qkey = 0x80010000U;
					w->wr.wr.ud.ah_num = 1;
				}
				snprintf(name, sizeof(name), "send-%s-op%u%s",
					 qpts[t], ops[i], inl ? "-inline" : "");
				put_wqe(cfg, &s, sizeof(s), name);
			}
		}
	}
	/* one WQE per reason to refuse it, from an RC SEND of one SGE */
	for (i = 0; i < 8; i++) {
		static const char *const why[] = {
			"flags", "num-sge", "too-long", "inline-too-long",
			"atomic-unaligned", "atomic-short",
			"atomic-write-unaligned", "flush-type",
		};

		memset(&s, 0, sizeof(s));
		cfg[0] = 0;
		cfg[1] = 2;
		cfg[2] = 32;
		cfg[3] = 0;
		w->wr.opcode = 2;
		w->wr.send_flags = 2;
		w->dma.num_sge = 1;
		w->dma.sge[0].length = 8;
		w->wr.wr.atomic.remote_addr = 0x7f0012340000ULL;
		switch (i) {
		case 0:
			w->wr.send_flags = 0x10;	/* IP_CSUM */
			break;
		case 1:
			w->dma.num_sge = 3;
			break;
		case 2:
			w->dma.num_sge = 2;
			w->dma.sge[0].length = 0x80000000U;
			w->dma.sge[1].length = 1;
			break;
		case 3:
			w->wr.send_flags = 8;
			w->dma.length = 33;
			break;
		case 4:
			w->wr.opcode = 5;
			w->wr.wr.atomic.remote_addr += 4;
			break;
		case 5:
			w->wr.opcode = 6;
			w->dma.sge[0].length = 4;
			break;
		case 6:
			w->wr.opcode = 15;
			w->dma.length = 8;
			w->wr.wr.rdma.remote_addr += 4;
			break;
		default:
			w->wr.opcode = 14;
			w->wr.wr.flush.type = 4;
			break;
		}
		snprintf(name, sizeof(name), "send-bad-%s", why[i]);
		put_wqe(cfg, &s, sizeof(s), name);
	}
	/* UD: the destination QPN is 24 bits */
	memset(&s, 0, sizeof(s));
	cfg[0] = 2 << 1;
	w->wr.opcode = 2;
	w->wr.wr.ud.remote_qpn = 0x1000000;
	put_wqe(cfg, &s, sizeof(s), "send-bad-ud-qpn");

	memset(&r, 0, sizeof(r));
	cfg[0] = 1;			/* receive WQE */
	cfg[1] = 4;			/* max_recv_sge */
	cfg[2] = cfg[3] = 0;
	r.w.wr_id = 0x2000;
	r.w.dma.num_sge = 3;
	r.w.dma.sge[0].length = 4096;
	r.w.dma.sge[1].length = 0xffffffffU;
	r.w.dma.sge[2].length = 1;
	put_wqe(cfg, &r, sizeof(r), "recv-3sge");
	r.w.dma.num_sge = 5;
	put_wqe(cfg, &r, sizeof(r), "recv-too-many");
}

/* REGRESS_DIR/TARGET-NAME.hex -> OUTDIR/TARGET/regress-NAME */
static void regress_seeds(const char *dir)
{
	static uint8_t buf[65536];
	char path[4096], target[16];
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t n;
	int c, nib, hi;
	FILE *f;

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *name = de->d_name, *dot = strrchr(name, '.');
		const char *dash = strchr(name, '-');

		if (!dot || strcmp(dot, ".hex") || !dash ||
		    (size_t)(dash - name) >= sizeof(target))
			continue;
		memcpy(target, name, dash - name);
		target[dash - name] = 0;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		f = fopen(path, "r");
		if (!f)
			die("cannot read %s", path);
		n = 0;
		hi = -1;
		while ((c = fgetc(f)) != EOF) {
			if (c == '#') {
				while ((c = fgetc(f)) != EOF && c != '\n')
					;
				continue;
			}
			if (c >= '0' && c <= '9')
				nib = c - '0';
			else if (c >= 'a' && c <= 'f')
				nib = c - 'a' + 10;
			else if (c >= 'A' && c <= 'F')
				nib = c - 'A' + 10;
			else
				continue;
			if (hi < 0) {
				hi = nib;
				continue;
			}
			if (n == sizeof(buf))
				die("%s: too long", path);
			buf[n++] = hi << 4 | nib;
			hi = -1;
		}
		fclose(f);
		if (hi >= 0)
			die("%s: odd number of hex digits", path);
		put(target, buf, n, "regress-%.*s", (int)(dot - dash - 1),
		    dash + 1);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc < 2 || argc > 3)
		die("usage: gen_seeds OUTDIR [REGRESS_DIR]");
	outdir = argv[1];
	snprintf(path, sizeof(path), "%s/hdr", outdir);
	mkdir(outdir, 0777);
	mkdir(path, 0777);
	snprintf(path, sizeof(path), "%s/wqe", outdir);
	mkdir(path, 0777);
	hdr_seeds();
	wqe_seeds();
	if (argc == 3)
		regress_seeds(argv[2]);
	printf("gen_seeds: %u seeds in %s\n", nseeds, outdir);
	return 0;
}
