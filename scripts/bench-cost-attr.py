#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where a message's kernel instructions go: make bench's SV_BENCH=cost with
SV_BENCH_COST_SYMS=1 (scripts/bench-cost.sh) counted every kernel block
between the marks (the kcount plugin's blocks= file); this maps each block to
its function with the guest's /proc/kallsyms and prints, per case and
provider, instructions per message by area and the top functions.

    bench-cost-attr.py BLOCKS LOG [TOP]

A function's count per message is taken like the totals: its instructions
in the N2-message run minus those in the N1-message run, over N2 - N1,
summed over the rounds.  Areas are guessed from module and function names
(AREAS below); what no rule names is "other"."""

import base64
import bisect
import collections
import gzip
import re
import sys

# (area, module names, function-name pattern); the first that matches wins
AREAS = [
    ("provider", {"softverbs", "rdma_rxe"}, None),
    ("ib_core, ib_uverbs", {"ib_core", "ib_uverbs", "rdma_cm", "ib_cm", "iw_cm"}, None),
    ("CRC", {"crc32_pclmul", "crc32c_intel", "crc32_generic", "crc32c_generic"}, r"crc32|crc_"),
    ("copies", None, r"^(__)?(memcpy|memmove|memset|copy_user|_copy_|copy_page|clear_page|"
                     r"copyin|copyout|rep_movs|__copy|copy_mc|fast_string)"),
    ("syscall path", None, r"^(entry_SYSCALL|do_syscall|syscall_|exit_to_user|__x64_sys_|ksys_|"
                           r"vfs_(read|write)|__fdget|fput|fdget|rw_verify_area|"
                           r"security_file|__audit|syscall_trace|irqentry_exit_to_user)"),
    ("UDP/IP stack", {"veth", "udp_tunnel", "ip6_udp_tunnel"},
     r"^(__)?(udp|ip_|ip6|ipv4|ipv6|inet|dev_|netif_|net_rx|napi|skb_|__skb|kfree_skb|"
     r"consume_skb|alloc_skb|build_skb|sock_|sk_|fib|dst_|neigh|nf_|netdev|eth_|"
     r"process_backlog|rt_|raw_v4|validate_xmit|sch_|qdisc|pfifo|csum|__napi|"
     r"__netif|__dev_|__ip|__udp|__inet|l3mdev|ip_finish|icmp)"),
    ("allocator", None, r"^(__|___)?(kmem_cache|kmalloc|kfree|slab|kmem_|alloc_pages|"
                        r"get_page_from_freelist|free_unref|free_pcp|rmqueue|page_frag|"
                        r"__free_pages|free_pages|mod_objcg|obj_cgroup|memcg|refill_obj)"),
    ("softirq, work items", None, r"^(__do_softirq|do_softirq|__local_bh|local_bh|tasklet|"
                                  r"process_one_work|worker_thread|queue_work|__queue_work|"
                                  r"insert_work|wq_|irq_exit|run_ksoftirqd|raise_softirq|"
                                  r"__raise_softirq)"),
    ("scheduler, timers, IRQs", None, r"^(__)?(schedule|pick_next|.*_fair$|enqueue|dequeue|"
                                      r"update_curr|update_load|update_cfs|try_to_wake_up|"
                                      r"wake_up|finish_task_switch|switch_|__switch_to|ttwu|"
                                      r"select_task_rq|hrtimer|tick|.*timer|irq|asm_sysvec|"
                                      r"sysvec|apic|native_|lapic|check_preempt|resched|"
                                      r"psi_|cpuacct|sched|account_|rcu)"),
]


def area_of(name, module):
    for area, mods, pat in AREAS:
        if mods and module in mods:
            return area
        if pat and module not in ("softverbs", "rdma_rxe") and re.search(pat, name):
            return area
    return "other"


def parse_syms(b64):
    """(sorted addresses, names, modules) of one kcount-syms line"""
    rows = []
    for line in gzip.decompress(base64.b64decode(b64)).decode().splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        mod = f[2].strip("[]") if len(f) > 2 else ""
        rows.append((int(f[0], 16), f[1], mod))
    rows.sort()
    return rows


def parse_log(log):
    """the log's labels {SEQ: fields} and symbol sets [(valid from mark SEQ,
    rows)], in the log's order"""
    labels, symsets = {}, []
    for line in open(log, errors="replace"):
        f = line.split()
        if not f:
            continue
        if f[0] == "kcount-label":
            labels[int(f[1])] = f[2:]
        elif f[0] == "kcount-syms" and len(f) == 3:
            symsets.append((int(f[1]), parse_syms(f[2])))
    return labels, symsets


def main():
    blocks_file, log = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    labels, symsets = parse_log(log)
    core = [rows for seq, rows in symsets if seq == 0]
    # by mark; of two sets valid from the same mark the later one counts
    # (a provider that ran no case leaves a set with no mark after it)
    mods = sorted(((seq, rows) for seq, rows in symsets if seq > 0),
                  key=lambda t: t[0])
    if not core:
        sys.exit("bench-cost-attr: no kernel symbols in the log (SV_BENCH_COST_SYMS=1)")

    # window (end mark) -> {vaddr: insns}
    windows = collections.defaultdict(collections.Counter)
    for line in open(blocks_file):
        seq, va, n = line.split()
        seq = int(seq)
        lab = labels.get(seq)
        if lab and lab[4] == "end" and len(lab) > 5 and lab[5] == "ok":
            windows[seq][int(va, 16)] += int(n)

    tables = {}
    cache = {}

    def resolve(va, seq):
        i = bisect.bisect_right(mod_seqs, seq) - 1
        key = (va, i)
        if key in cache:
            return cache[key]
        best = (0, "?", "")
        for rows, addrs in ([(core[0], core_addrs)] +
                            ([(mods[i][1], mod_addrs[i])] if i >= 0 else [])):
            j = bisect.bisect_right(addrs, va) - 1
            if j >= 0 and rows[j][0] > best[0]:
                best = rows[j]
        cache[key] = (best[1], best[2])
        return cache[key]

    core_addrs = [r[0] for r in core[0]]
    mod_seqs = [s for s, _ in mods]
    mod_addrs = [[r[0] for r in rows] for _, rows in mods]

    # per (provider, case): {(name, module): summed insns of N2 minus N1 runs}, messages
    acc = collections.defaultdict(collections.Counter)
    msgs = collections.Counter()
    runs = collections.defaultdict(dict)
    for seq, lab in labels.items():
        prov, case, rnd, n = lab[0], lab[1], lab[2], int(lab[3])
        if seq in windows:
            runs[(prov, case, rnd)][n] = seq
    for (prov, case, rnd), byn in runs.items():
        if len(byn) != 2:
            continue
        n1, n2 = sorted(byn)
        for sign, n in ((-1, n1), (1, n2)):
            for va, cnt in windows[byn[n]].items():
                acc[(prov, case)][resolve(va, byn[n])] += sign * cnt
        msgs[(prov, case)] += n2 - n1

    cases = []
    for prov, case in acc:
        if case not in cases:
            cases.append(case)
    for case in cases:
        print(f"\n== {case}: kernel instructions per message by area")
        areas = {}
        for prov in ("sv", "rxe"):
            a = collections.Counter()
            m = msgs[(prov, case)]
            for (name, mod), cnt in acc[(prov, case)].items():
                a[area_of(name, mod)] += cnt / m if m else 0
            areas[prov] = a
        names = [x[0] for x in AREAS] + ["other"]
        print(f"{'area':26s} {'softverbs':>10s} {'Soft-RoCE':>10s}")
        for name in names:
            print(f"{name:26s} {areas['sv'][name]:10.0f} {areas['rxe'][name]:10.0f}")
        print(f"{'total':26s} {sum(areas['sv'].values()):10.0f} {sum(areas['rxe'].values()):10.0f}")
        for prov, title in (("sv", "softverbs"), ("rxe", "Soft-RoCE")):
            m = msgs[(prov, case)]
            if not m:
                continue
            print(f"-- {case}, {title}: top functions, instructions per message")
            for (name, mod), cnt in acc[(prov, case)].most_common(top):
                print(f"   {cnt / m:9.0f}  {name}{' [' + mod + ']' if mod else ''}  ({area_of(name, mod)})")


if __name__ == "__main__":
    main()
