#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where a message's instructions go inside one module, by source line: the
companion of bench-cost-attr.py for make bench's SV_BENCH=cost with
SV_BENCH_COST_SYMS=1.  It takes the kcount blocks that lie in the module,
turns each block's guest address into an offset in one of the module's
sections, splits the block's count over the instructions the block ran, and
names each instruction's source line with addr2line -i on the module.

    bench-cost-lines.py BLOCKS LOG MODULE.ko CASE [--prov sv] [--top 40]
                        [--func NAME]... [--depth 4] [--min 2]

Counts per message are taken as bench-cost-attr.py takes them: the N2-message
run minus the N1-message run, over N2 - N1, summed over the rounds.  It
prints the module's total, its top functions (outermost, not inlined, as
DWARF names them), the top source lines (innermost file:line, with the
outermost function and the heaviest inline chain that reaches the line),
and for each --func a breakdown by inlined callee (flat, then as a tree
of inline instances), by innermost function and by line.

Section bases: the log holds the guest's /proc/kallsyms (kcount-syms lines,
valid from a mark on); a module symbol's guest address minus its value in
the .ko's symbol table gives its section's base, the most common one per
section wins.  The .ko must be the one that ran (the script says how many
symbols agree).

Block lengths: the blocks file has, per block, instructions = executions x
length, not the length.  A block is rebuilt from the .ko's disassembly: from
its address to the first instruction that ends a TCG translation block (a
jump, call, return, rep string instruction, popf, sti, ...), or to the last
one that starts on the block's first page (QEMU ends a block there, the
counts show).  call __fentry__ counts as the nop ftrace makes of it, a
paravirt call (call *pv_ops) as the three instructions patched in (pushf;
pop; nop), or one or two if the counts want.  A count that is no multiple
of the length so found is still split evenly over it; the "length
mismatch" line says how much of the count that concerns."""

import argparse
import bisect
import collections
import importlib.util
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_attr():
    """bench-cost-attr.py as a module (its name has dashes)"""
    sys.dont_write_bytecode = True
    spec = importlib.util.spec_from_file_location(
        "bench_cost_attr", os.path.join(HERE, "bench-cost-attr.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(*cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                          check=True).stdout


def short(path):
    """a source path without the build tree's or the headers' prefix"""
    path = os.path.normpath(path)
    path = re.sub(r".*/linux-headers-[^/]+/", "", path)
    path = re.sub(r".*/kmod/", "kmod/", path)
    return path


def parse_log(attr, log):
    """labels {SEQ: fields}, the module-bearing symbol sets [(valid from
    SEQ, rows)] sorted"""
    labels, symsets = attr.parse_log(log)
    symsets = sorted((t for t in symsets if t[0] > 0), key=lambda t: t[0])
    return labels, symsets


def ko_info(ko):
    """{section: size} of the code sections, {name: [(section, value)]}"""
    sizes = {}
    for line in run("objdump", "-h", ko).splitlines():
        f = line.split()
        if len(f) >= 7 and f[0].isdigit() and "text" in f[1]:
            sizes[f[1]] = int(f[2], 16)
    syms = collections.defaultdict(list)
    for line in run("objdump", "-t", ko).splitlines():
        f = line.split()
        if len(f) >= 5 and f[-3] in sizes and not f[-1].startswith("."):
            syms[f[-1]].append((f[-3], int(f[0], 16)))
    return sizes, syms


def section_bases(rows, module, syms):
    """{section: guest base} from one kallsyms set; (agreeing, matched)"""
    votes = collections.defaultdict(collections.Counter)
    for va, name, mod in rows:
        if mod != module or len(syms.get(name, ())) != 1:
            continue
        sec, val = syms[name][0]
        votes[sec][va - val] += 1
    bases, agree, total = {}, 0, 0
    for sec, c in votes.items():
        base, n = c.most_common(1)[0]
        bases[sec] = base
        agree += n
        total += sum(c.values())
    return bases, agree, total


STRING_OPS = re.compile(r"^(movs|stos|lods|cmps|scas|ins|outs)")
PREFIXES = {"lock", "notrack", "bnd", "cs", "ds", "es", "ss", "fs", "gs",
            "data16", "addr32", "rex", "rex.w", "rex.W"}


def kind_of(text, reloc):
    """'end' if the instruction ends a TCG block, 'pv' for a paravirt
    call, 'nop' for call __fentry__, else None"""
    toks = text.split()
    while toks and toks[0] in PREFIXES:
        toks = toks[1:]
    if not toks:
        return None
    m = toks[0]
    if m in ("rep", "repz", "repnz", "repe", "repne"):
        return "end" if len(toks) > 1 and STRING_OPS.match(toks[1]) else None
    if m.startswith("call"):
        if reloc.startswith("__fentry__"):
            return "nop"
        if reloc.startswith("pv_ops"):
            return "pv"
        return "end"
    if (m[0] == "j" or m.startswith(("ret", "lret", "iret", "sysret", "syscall", "sysenter",
                                     "int", "ud", "hlt", "loop", "popf", "sti", "pause",
                                     "wrmsr", "lgdt", "lidt", "invlpg"))
            or (m.startswith("mov") and "%cr" in text.split(",")[-1])):
        return "end"
    return None


def disassemble(ko, sec):
    """sorted offsets, kinds, texts of the instructions in @sec"""
    offs, kinds, texts = [], [], []
    insn = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
    rel = re.compile(r"^\s*([0-9a-f]+): (R_\S+)\s+(\S+)")
    pending = None

    def flush():
        if pending:
            offs.append(pending[0])
            kinds.append(kind_of(pending[1], pending[2]))
            texts.append(pending[1])

    for line in run("objdump", "-d", "-r", "--no-show-raw-insn", "-j", sec, ko).splitlines():
        r = rel.match(line)
        if r:
            if pending and not pending[2]:
                pending[2] = r.group(3)
            continue
        m = insn.match(line)
        if m:
            flush()
            pending = [int(m.group(1), 16), m.group(2).strip(), ""]
    flush()
    return offs, kinds, texts


class Blocks:
    """rebuilds blocks from the disassembly: instruction indices, weights"""

    def __init__(self, ko):
        self.ko = ko
        self.dis = {}
        self.cache = {}

    def get(self, sec, base, off, g):
        key = (sec, base, off, g)
        if key in self.cache:
            return self.cache[key]
        if sec not in self.dis:
            self.dis[sec] = disassemble(self.ko, sec)
        offs, kinds, _ = self.dis[sec]
        i = bisect.bisect_left(offs, off)
        aligned = i < len(offs) and offs[i] == off
        j, npv = i, 0
        page = (base + off) >> 12
        while j < len(offs) and j - i < 512 and (base + offs[j]) >> 12 == page:
            if kinds[j] == "pv":
                npv += 1
            if kinds[j] == "end":
                j += 1
                break
            j += 1
        n = j - i
        if not n:
            self.cache[key] = ([], False)
            return self.cache[key]
        # a paravirt call is 1 insn in the .ko, 3 once patched (pushf; pop;
        # nop, the counts say), else maybe 1 or 2
        extra = next((e for e in [2 * npv] + list(range(2 * npv))
                      if g % (n + e) == 0), None)
        ok = aligned and extra is not None
        extra = extra or 0
        w = [1.0] * n
        for k in range(n):
            if kinds[i + k] == "pv":
                w[k] = 1 + extra / npv
        tot = sum(w) or 1
        res = ([(i + k, w[k] / tot) for k in range(n)], ok)
        self.cache[key] = res
        return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("blocks")
    ap.add_argument("log")
    ap.add_argument("ko")
    ap.add_argument("case")
    ap.add_argument("--prov", default="sv", help="provider label (sv, rxe)")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--func", action="append", default=[],
                    help="break this function down by inlined callee and line")
    ap.add_argument("--depth", type=int, default=4, help="levels of --func's inline tree")
    ap.add_argument("--min", type=float, default=2.0,
                    help="smallest count per message --func's inline tree shows")
    a = ap.parse_args()

    attr = load_attr()
    module = os.path.basename(a.ko).rsplit(".", 1)[0].replace("-", "_")
    labels, symsets = parse_log(attr, a.log)
    if not symsets:
        sys.exit("bench-cost-lines: no module symbols in the log (SV_BENCH_COST_SYMS=1)")
    sizes, syms = ko_info(a.ko)
    set_seqs = [s for s, _ in symsets]
    bases_of = {}
    for idx, (seq, rows) in enumerate(symsets):
        bases, agree, total = section_bases(rows, module, syms)
        bases_of[idx] = bases
        if bases:
            print(f"# symbols from mark {seq}: {agree} of {total} {module} symbols agree on "
                  + ", ".join(f"{s} at {b:#x}" for s, b in sorted(bases.items())))

    def set_for(seq):
        return bisect.bisect_right(set_seqs, seq) - 1

    # the case's runs: (round) -> {N: end mark}; every ok window of the provider
    runs = collections.defaultdict(dict)
    prov_windows = set()
    for seq, lab in labels.items():
        if len(lab) > 5 and lab[4] == "end" and lab[5] == "ok" and lab[0] == a.prov:
            prov_windows.add(seq)
            if lab[1] == a.case:
                runs[lab[2]][int(lab[3])] = seq
    sign, msgs = {}, 0
    for rnd, byn in runs.items():
        if len(byn) != 2:
            continue
        n1, n2 = sorted(byn)
        sign[byn[n1]], sign[byn[n2]] = -1, 1
        msgs += n2 - n1
    if not msgs:
        sys.exit(f"bench-cost-lines: no complete runs of {a.case} for {a.prov}")

    def locate(va, bases):
        for sec, base in bases.items():
            if base <= va < base + sizes[sec]:
                return sec, va - base
        return None

    # one pass: the case's windows' counts, every provider window's for the gcd
    counts = collections.defaultdict(list)      # (base set, sec, off) -> counts
    mine = []                                   # (seq, base set, sec, off, count)
    for line in open(a.blocks):
        seq, va, n = line.split()
        seq = int(seq)
        if seq not in prov_windows:
            continue
        idx = set_for(seq)
        if idx < 0:
            continue
        where = locate(int(va, 16), bases_of[idx])
        if not where:
            continue
        n = int(n)
        counts[(idx, *where)].append(n)
        if seq in sign:
            mine.append((seq, idx, where[0], where[1], n))

    blocks = Blocks(a.ko)
    per_insn = collections.Counter()            # (sec, insn index) -> insns per message
    bad = 0.0
    total = 0.0
    for seq, idx, sec, off, n in mine:
        g = math.gcd(*counts[(idx, sec, off)])
        insns, ok = blocks.get(sec, bases_of[idx][sec], off, g)
        v = sign[seq] * n / msgs
        total += v
        if not ok:
            bad += abs(v)
        for k, w in insns:
            per_insn[(sec, k)] += v * w

    # addr2line -i per section, for the instructions that count
    chains = {}
    for sec in sorted({s for s, _ in per_insn}):
        offs = blocks.dis[sec][0]
        keys = sorted(k for s, k in per_insn if s == sec)
        out = run("addr2line", "-e", a.ko, "-j", sec, "-i", "-f", "-a",
                  stdin="".join(f"{offs[k]:#x}\n" for k in keys))
        cur = None
        lines = out.splitlines()
        pos = 0
        by_off = {}
        while pos < len(lines):
            if lines[pos].startswith("0x"):
                cur = int(lines[pos], 16)
                by_off[cur] = []
                pos += 1
                continue
            func = lines[pos]
            loc = lines[pos + 1] if pos + 1 < len(lines) else "??:0"
            loc = re.sub(r" \(discriminator \d+\)", "", loc)
            file, _, ln = loc.rpartition(":")
            by_off[cur].append((func, f"{short(file)}:{ln}"))
            pos += 2
        for k in keys:
            chains[(sec, k)] = by_off.get(offs[k]) or [("??", "??:0")]

    print(f"== {a.case}, {a.prov}: {module} instructions per message ({msgs} messages)")
    print(f"total {total:.0f}; length mismatch (count no multiple of the rebuilt "
          f"block's length, or a block start inside an instruction; N1 and N2 runs "
          f"added) {bad:.1f}")

    fn = collections.Counter()
    for key, v in per_insn.items():
        fn[chains[key][-1][0]] += v
    print(f"\n-- top functions (outermost, inlined callees included)")
    for name, v in fn.most_common(a.top // 2):
        print(f"{v:8.1f}  {name}")

    lines = collections.Counter()
    heavy = collections.defaultdict(collections.Counter)
    for key, v in per_insn.items():
        ch = chains[key]
        lk = (ch[0][1], ch[-1][0])
        lines[lk] += v
        heavy[lk][" < ".join(f for f, _ in ch[:-1])] += v
    print(f"\n-- top {a.top} source lines: innermost file:line, outermost function "
          f"[inline chain, innermost first]")
    for (loc, outer), v in lines.most_common(a.top):
        ch = heavy[(loc, outer)].most_common(1)[0][0]
        print(f"{v:8.1f}  {loc:32s} {outer}" + (f" [{ch}]" if ch else ""))

    for func in a.func:
        # the instructions of @func, an outermost function or inlined: each
        # with its chain cut at @func's outermost instance
        sel = {}
        for key, v in per_insn.items():
            ch = chains[key]
            d = max((d for d in range(len(ch)) if ch[d][0] == func), default=None)
            if d is not None:
                sel[key] = (v, ch[:d + 1])
        tot = sum(v for v, _ in sel.values())
        calls = ""
        if len(syms.get(func, ())) == 1:
            sec, val = syms[func][0]
            offs = blocks.dis.get(sec, ([],))[0]
            k = bisect.bisect_left(offs, val)
            if k < len(offs) and offs[k] == val:
                c = per_insn.get((sec, k), 0.0)
                if not c:
                    calls = ", inlined only"
                else:
                    calls = f", called {c:.2f} times per message, {tot / c:.0f} a call"
        print(f"\n-- {func}: {tot:.1f} per message{calls} (inlined instances included)")
        callee = collections.Counter()
        inner = collections.Counter()
        own = collections.Counter()
        ilines = collections.Counter()
        for v, ch in sel.values():
            callee[ch[-2][0] if len(ch) > 1 else "(itself)"] += v
            inner[ch[0][0]] += v
            own[(ch[-1][1], ch[-2][0] if len(ch) > 1 else "")] += v
            ilines[(ch[0][1], ch[0][0])] += v
        print(f"   by inlined callee (direct, its own callees included):")
        for name, v in callee.most_common():
            if abs(v) >= 0.5:
                print(f"{v:8.1f}  {name}")
        print(f"   inline tree (inclusive; callee (call site in its caller)), "
              f">= {a.min} per message, {a.depth} levels:")
        tree = collections.Counter()
        for v, ch in sel.values():
            path = ()
            for d in range(len(ch) - 2, max(len(ch) - 2 - a.depth, -1), -1):
                path += (f"{ch[d][0]} ({ch[d + 1][1]})",)
                tree[path] += v

        def walk(prefix):
            kids = [(p, v) for p, v in tree.items()
                    if len(p) == len(prefix) + 1 and p[:-1] == prefix]
            rest = (tree[prefix] if prefix else tot) - sum(v for _, v in kids)
            if kids and rest >= a.min and len(prefix) < a.depth:
                print(f"{rest:8.1f}  {'  ' * len(prefix)}(own code, not inlined)")
            for p, v in sorted(kids, key=lambda t: -t[1]):
                if v >= a.min:
                    print(f"{v:8.1f}  {'  ' * len(prefix)}{p[-1]}")
                    walk(p)
        walk(())
        print(f"   by innermost function:")
        for name, v in inner.most_common(a.top // 2):
            print(f"{v:8.1f}  {name}")
        print(f"   by {func}'s own line (the call site for inlined code):")
        for (loc, name), v in own.most_common(a.top // 2):
            print(f"{v:8.1f}  {loc:28s} {name}")
        print(f"   by innermost line:")
        for (loc, name), v in ilines.most_common(a.top // 2):
            print(f"{v:8.1f}  {loc:32s} {name}")


if __name__ == "__main__":
    main()
