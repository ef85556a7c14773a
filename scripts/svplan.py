#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""svplan: what each of make check's VMs runs, from the tests' sv-test lines.

  svplan.py [--uid N] shell [STOCK_KVER...]   the plan as bash assignments
  svplan.py [--uid N] plan [STOCK_KVER...]    SV_PLAN=1's listing, in launch order

check.sh finds the stock kernels and passes them, and its uid (the Debian 13
kernels are root only); the SV_* variables come from the environment, the
tests from tests/user/*.sh and tests/user/durations under this tree.
Warnings about the sv-test lines go to stderr.  Documentation/testing.md
("What runs where") describes the lines, the shards and the VM order.
"""

import argparse
import dataclasses
import os
import re
import shlex
import sys

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), '..'))

CLASSES = ('debug', 'first', 'stock', 'cloud', 'cloud1', 'trixie', 'sid')
ALL = 'debug,first,stock'
# KUnit (tests/kunit, run by guest-tests.sh as "kunit") has its line here
KUNIT_META = 'kernels=debug,stock cost=M'
# what the debug kernel's config lacks: such tests skip there
DK_LACKS = ('dkms', 'deb', 'nfsd', 'srp')
DK_NSHARDS = 2
COST_SECS = {'S': 20, 'M': 45, 'L': 80, 'XL': 120}
# What a VM costs besides its tests' "# time:": a debug VM boots and scans
# kmemleak twice (~65 s) and checks each test's kernel log and taint (~4 s);
# a stock VM ~15 s and ~1 s; make demo ~140 s.
DK_VM_SECS, DK_TEST_SECS = 65, 4
STOCK_VM_SECS, STOCK_TEST_SECS = 15, 1
DEMO_SECS = 140
# The host's stages beside debug #1, with a debug VM beside them: fuzzing,
# DKMS, make deb and the package installs, a module build, a fetched
# kernel's fetch, module and DKMS, lint, the Debian 13 root's DKMS and
# package installs for its kernel.
HOST_FUZZ_SECS, HOST_DKMS_SECS, HOST_DEB_SECS = 130, 100, 180
HOST_KMOD_SECS, HOST_CLOUD_SECS, HOST_LINT_SECS = 65, 140, 110
HOST_TROOT_SECS = 240
# Debian's cloud kernels: the meta packages scripts/cloud-kernel.sh fetches
CLOUD_METAS = ('linux-image-cloud-amd64', 'linux-image-6.12-cloud-amd64')
TRIXIE_VM = "Debian 13's 7.3 (amd64)"
# scripts/interop-vms.sh, both pairings (two VMs at once, after the lanes):
# 31 s measured with nothing beside it, twice that for a loaded host
INTEROP_SECS = 60

# bash's default IFS, which split the lines and durations before
_IFS = re.compile(r'[ \t\n]+')


def warn(msg):
    print(f'[check] warning: {msg}', file=sys.stderr)


def _words(s):
    return [w for w in _IFS.split(s) if w]


@dataclasses.dataclass
class Test:
    """One test's sv-test line: kernels is the comma list as written."""
    name: str
    kernels: str = ''
    needs: list = dataclasses.field(default_factory=list)
    quick: bool = False
    cost: str = ''

    def runs_on(self, cls):
        return f',{cls},' in f',{self.kernels},'


def parse_meta(name, line, warn=warn):
    """Return the Test of NAME's sv-test line LINE (the text after the tag)."""
    t = Test(name)
    for w in _words(line):
        v = w.split('=', 1)[1] if '=' in w else w
        if w.startswith('kernels='):
            if v == 'all':
                v = ALL
            for k in v.split(','):
                if k and k not in CLASSES:
                    warn(f"{name}: unknown kernel class '{k}' in '{w}'")
            t.kernels = v
        elif w.startswith('needs='):
            t.needs = [n for n in v.split(',') if n]
        elif w == 'quick':
            t.quick = True
        elif w.startswith('cost='):
            if v not in COST_SECS:
                warn(f"{name}: unknown cost '{v}' (S, M, L, XL)")
            t.cost = v
        else:
            warn(f"{name}: unknown field '{w}' in its sv-test line")
    if not t.kernels:
        warn(f"{name}: no 'kernels=' in its sv-test line: runs everywhere")
        t.kernels = ALL
    # the checks that keep the lines honest
    for n in t.needs:
        if n in DK_LACKS and t.runs_on('debug') and not t.runs_on('first'):
            warn(f"{name} needs {n}, which the debug kernel lacks, but does not run on 'first'")
    if t.quick and not t.runs_on('first') and not t.runs_on('stock'):
        warn(f"{name} is 'quick' but no stock kernel runs its full list")
    return t


def sv_line(text):
    """Return the text after "# sv-test:" in TEXT's first five lines, or ''."""
    # only whole lines, as bash's read saw them
    for line in text.split('\n')[:-1][:5]:
        if line.startswith('# sv-test:'):
            return line[len('# sv-test:'):]
    return ''


def load_tests(root=ROOT, warn=warn):
    """Return kunit and tests/user/[0-9]*.sh as Tests, in guest-tests.sh's order."""
    tests = [parse_meta('kunit', KUNIT_META, warn)]
    udir = os.path.join(root, 'tests', 'user')
    try:
        files = sorted(f for f in os.listdir(udir)
                       if re.fullmatch(r'[0-9].*\.sh', f, re.S))
    except FileNotFoundError:
        files = []
    for f in files:
        path = os.path.join(udir, f)
        if not os.path.exists(path):
            continue
        with open(path, encoding='utf-8', errors='surrogateescape') as fh:
            line = sv_line(fh.read())
        if not line:
            warn(f"tests/user/{f} has no '# sv-test:' line in its first 5 lines: runs on every kernel")
            line = 'kernels=all'
        tests.append(parse_meta(f[:-3], line, warn))
    return tests


def parse_durations(text, warn=warn):
    """Return {'debug': {name: s}, 'stock': {name: s}} of a durations file."""
    dur = {'debug': {}, 'stock': {}}
    for line in text.split('\n')[:-1]:
        f = _IFS.split(line.strip(' \t\n'), 2) + ['', '']
        if not f[0] or f[0].startswith('#'):
            continue
        for col, v in (('debug', f[1]), ('stock', f[2])):
            if v in ('', '-'):
                continue
            try:
                dur[col][f[0]] = int(v)
            except ValueError:
                warn(f"tests/user/durations: {f[0]}: '{v}' is not a number of seconds")
    return dur


def load_durations(root=ROOT, warn=warn):
    try:
        with open(os.path.join(root, 'tests', 'user', 'durations'), encoding='utf-8') as fh:
            return parse_durations(fh.read(), warn)
    except FileNotFoundError:
        return {'debug': {}, 'stock': {}}


def filter_of(names):
    """guest-tests.sh's FILTER for exactly NAMES."""
    return '^(' + '|'.join(names) + ')$'


_POSIX_CLASSES = {
    '[:alpha:]': 'A-Za-z', '[:digit:]': '0-9', '[:alnum:]': '0-9A-Za-z',
    '[:upper:]': 'A-Z', '[:lower:]': 'a-z', '[:space:]': r' \t\n\r\f\v',
    '[:blank:]': r' \t', '[:xdigit:]': '0-9A-Fa-f', '[:punct:]': r'!-/:-@\[-`{-~',
}


def _ere_search(regex, name):
    """NAME matches the extended regex REGEX, as bash's =~ says (an invalid
    regex matches nothing).  POSIX classes are spelled for Python's re."""
    for cls, py in _POSIX_CLASSES.items():
        regex = regex.replace(cls, py)
    try:
        return re.search(regex, name) is not None
    except re.error:
        return False


def filter_runs(filt, name):
    """guest-tests.sh given FILT runs test NAME: an empty FILT runs everything,
    "!REGEX" what REGEX does not match."""
    if not filt:
        return True
    if filt.startswith('!'):
        return not _ere_search(filt[1:], name)
    return _ere_search(filt, name)


def _cdiv(a, b):
    """bash's $((a / b)): truncated toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


class Plan:
    """Every VM of a make check run: the filters, the debug kernel's shards,
    the order, the estimates.  ENV holds the SV_* variables, STOCK the stock
    kernels (the first one is "first"), UID check.sh's user id."""

    def __init__(self, tests, durations, env, stock, uid=0, debug_script=True):
        self.tests = tests
        self.names = [t.name for t in tests]
        self.byname = {t.name: t for t in tests}
        self.dur = durations
        self.env = env
        self.stock = list(stock)
        tests_env = self.get('SV_TESTS')

        self.cloud_metas = list(CLOUD_METAS) if self.get('SV_CLOUD', '1') != '0' else []
        self.trixie_series = _words(self.get('SV_TRIXIE_SERIES', '6.16 6.17 6.18 6.19 7.0 7.1 7.2 7.3'))
        # Debian 13's own kernel series (headers only): the Debian 13 root's
        # package install starts there and upgrades to 7.3 (set but empty:
        # installs on 7.3 directly)
        self.trixie_from = self.env.get('SV_TRIXIE_FROM', '6.12')
        self.trixie_vms = 1
        if self.get('SV_TRIXIE', '1') == '0' or uid != 0:
            self.trixie_series, self.trixie_vms, self.trixie_from = [], 0, ''
        self.dk_wanted = int(debug_script and self.get('SV_DEBUG_KERNEL', '1') != '0')
        self.demo_wanted = int(not (self.get('SV_DEMO', '1') == '0' or tests_env
                                    or self.get('SV_DEBUG_TESTS') or not self.stock))

        self.sel = {c: self.tests_on(c) for c in ('debug', 'first', 'stock', 'cloud')}
        # the first cloud kernel's: the cloud lane's and the cloud1 tests
        self.sel['cloud1'] = [t.name for t in tests
                              if t.runs_on('cloud') or t.runs_on('cloud1')]
        self.stock_filter = tests_env or filter_of(self.sel['stock'])
        self.cloud_filter = tests_env or filter_of(self.sel['cloud'])
        self.cloud1_filter = tests_env or filter_of(self.sel['cloud1'])
        if not self.sel['cloud1'] and not tests_env:
            self.cloud_metas = []
        # without a debug kernel the first stock kernel runs everything
        self.first_filter = tests_env
        if self.dk_wanted:
            self.first_filter = tests_env or filter_of(self.sel['first'])

        # the roots' lanes: their tests (SV_TESTS narrows them) on their kernels
        self.sel['sid'] = [n for n in self.tests_on('sid') if filter_runs(tests_env, n)]
        self.sel['trixie'] = [n for n in self.tests_on('trixie') if filter_runs(tests_env, n)]
        self.sid_filter = filter_of(self.sel['sid'])
        self.troot_filter = filter_of(self.sel['trixie'])
        # sid: SV_SID_KERNELS, by default the stock kernels but the first
        # and (added by check.sh once fetched) Debian 13's with an image
        sid_on = bool(self.sel['sid']) and self.get('SV_SID', '1') != '0'
        self.sid_kernels = _words(self.get('SV_SID_KERNELS', ' '.join(self.stock[1:])))
        self.sid_trixie = int(sid_on and not self.get('SV_SID_KERNELS'))
        if not sid_on:
            self.sid_kernels = []
        # Debian 13: SV_TRIXIE_ROOT_KERNELS, by default Debian 13's kernels
        # with an image (troot_auto: known once fetched), without them the
        # last stock kernel
        self.troot_auto, self.troot_kernels = 0, []
        if self.get('SV_TRIXIE_ROOT_KERNELS'):
            self.troot_kernels = _words(self.get('SV_TRIXIE_ROOT_KERNELS'))
        elif self.trixie_vms:
            self.troot_auto = 1
        else:
            self.troot_kernels = self.stock[-1:]
        if not self.sel['trixie'] or self.get('SV_TRIXIE_ROOT', '1') == '0':
            self.troot_kernels, self.troot_auto = [], 0

        if self.get('SV_DEBUG_SHARDS'):
            self.dk_shards = _words(self.get('SV_DEBUG_SHARDS'))
        else:
            self.dk_shards = self.debug_shards()
        # SV_DEBUG_TESTS / SV_TESTS choose one selection: one VM is enough
        one = self.get('SV_DEBUG_TESTS') or tests_env
        if one:
            self.dk_shards = [one]
        self.nic_tests = [t.name for t in tests if 'nic' in t.needs]
        # scripts/interop-vms.sh: Debian 13's 7.3 against the first stock 6.1,
        # two VMs at once, so after every lane; SV_TESTS or SV_DEBUG_TESTS
        # keep it only if they match "interop"
        self.interop_old = next((k for k in self.stock if k.startswith('6.1.')), '')
        self.interop_wanted = int(bool(
            self.trixie_vms and self.interop_old and self.get('SV_INTEROP', '1') != '0'
            and filter_runs(one or '', 'interop')))
        if not self.interop_wanted:
            self.interop_old = ''

    def get(self, var, default=''):
        """${VAR:-DEFAULT}"""
        return self.env.get(var) or default

    def tests_on(self, cls):
        return [t.name for t in self.tests if t.runs_on(cls)]

    def est(self, col, name):
        """NAME's seconds on the debug or a stock kernel (COL): the measured
        time, else its cost class's, else M's."""
        if name in self.dur[col]:
            return self.dur[col][name]
        return COST_SECS.get(self.byname[name].cost or 'M', COST_SECS['M'])

    def vm_est(self, col, names):
        """A VM running NAMES on the debug or a stock kernel, in seconds."""
        if col == 'debug':
            return DK_VM_SECS + sum(self.est(col, n) + DK_TEST_SECS for n in names)
        return STOCK_VM_SECS + sum(self.est(col, n) + STOCK_TEST_SECS for n in names)

    def host_est(self):
        """Seconds of the host's stages that run beside debug #1."""
        # Debian 13's series: a module build each, and those fetched with
        # their image (SV_TRIXIE_IMAGES) as much as a cloud kernel
        images = _words(self.get('SV_TRIXIE_IMAGES', '7.3'))
        t = (len(self.stock) * HOST_KMOD_SECS + len(self.cloud_metas) * HOST_CLOUD_SECS
             + sum(HOST_CLOUD_SECS if s in images else HOST_KMOD_SECS
                   for s in self.trixie_series))
        for var, secs in (('SV_FUZZ', HOST_FUZZ_SECS), ('SV_DKMS', HOST_DKMS_SECS),
                          ('SV_DEB', HOST_DEB_SECS), ('SV_LINT', HOST_LINT_SECS)):
            if self.get(var, '1') != '0':
                t += secs
        return t + self.troot_auto * HOST_TROOT_SECS

    def other_lane(self):
        """VM seconds of the lane beside debug #1: the host's stages, every
        stock, Debian 13 and cloud VM, make demo."""
        t = 0
        if self.stock:
            t = self.vm_est('stock', self.sel['stock']) * (len(self.stock) - 1)
            t += self.vm_est('stock', self.sel['first'] if self.dk_wanted else self.names)
        if self.demo_wanted:
            t += DEMO_SECS
        t += self.trixie_vms * self.vm_est('stock', self.sel['stock'])
        if self.cloud_metas:
            t += (self.vm_est('stock', self.sel['cloud1'])
                  + (len(self.cloud_metas) - 1) * self.vm_est('stock', self.sel['cloud']))
        if self.dk_wanted:
            t += self.host_est()
        return t

    def debug_shards(self, nshards=DK_NSHARDS):
        """The debug kernel's VMs, one filter each, for two lanes.

        Debug #1 and #2 take a lane each; #2's lane then takes every other
        VM and the host's stages, so #2 gets (all debug - the other lane) / 2
        of VM time and #1 (#3, ...) the rest in equal parts.  Each test,
        longest first (name order among equals), goes to the shard with the
        most room left (the lowest number among equals).  An empty shard is
        left out."""
        total = self.vm_est('debug', self.sel['debug'])
        half = _cdiv(total + self.other_lane(), 2)
        target = {2: max(total - half, 0)}
        for k in range(1, nshards + 1):
            if k != 2:
                target[k] = _cdiv(total - target[2], nshards - 1)
        # the test time each shard has room for, its VM's own cost off
        room = [target.get(k, 0) - DK_VM_SECS for k in range(1, nshards + 1)]
        members = [[] for _ in range(nshards)]
        order = sorted(((self.est('debug', n), n) for n in self.sel['debug']),
                       key=lambda e: (-e[0], e[1]))
        for secs, name in order:
            best = max(range(nshards), key=lambda k: (room[k], -k))
            room[best] -= secs + DK_TEST_SECS
            members[best].append(name)
        # in the order guest-tests.sh runs them
        return [filter_of([n for n in self.names if n in m]) for m in members if m]

    def root_lanes(self):
        """(label, filter, kernels) of the sid and Debian 13 roots' VMs as
        planned before anything is fetched."""
        troot = list(self.troot_kernels)
        if self.troot_auto:
            troot.append(TRIXIE_VM)
        return [('sid root', self.sid_filter, self.sid_kernels),
                ('Debian 13 root', self.troot_filter, troot)]

    def vms(self):
        """(label, column, filter) of each VM in launch order; the debug
        shards are labelled "debug #N"."""
        out = []
        debug = [(f'debug #{n}', 'debug', f) for n, f in enumerate(self.dk_shards, 1)]
        if self.dk_wanted:
            out += debug[:2]
        out += [(k, 'stock', self.stock_filter) for k in self.stock[1:]]
        if self.trixie_vms:
            out.append((TRIXIE_VM, 'stock', self.stock_filter))
        for m in self.cloud_metas:
            f = self.cloud1_filter if m == self.cloud_metas[0] else self.cloud_filter
            out.append((f'cloud ({m})', 'stock', f))
        if self.dk_wanted:
            out += debug[2:]
        if self.stock:
            out.append((f'{self.stock[0]} (first)', 'stock', self.first_filter))
        for label, f, kernels in self.root_lanes():
            out += [(f'{k} ({label})', 'stock', f) for k in kernels]
        # the 7.3 cloud kernel with the module DKMS's header hook built in
        # the upgrade install: 17-deb only
        if self.troot_auto and self.trixie_from and filter_runs(self.troot_filter, '17-deb'):
            out.append(("Debian 13's 7.3 cloud (Debian 13 root)", 'stock', '^(17-deb)$'))
        return out

    def selection(self, filt):
        return [n for n in self.names if filter_runs(filt, n)]

    def listing(self):
        """SV_PLAN=1's text."""
        vms = self.vms()
        # the host's stages run beside debug #1, before debug #2 starts
        head = min(len(self.dk_shards), 2) if self.dk_wanted else None
        lines = []
        for i in range(len(vms) + 1):
            if i == head:
                lines.append(f'host stages beside debug #1, before debug #2: ~{self.host_est()} s')
            if i == len(vms):
                break
            label, col, filt = vms[i]
            sel = self.selection(filt)
            lines.append(f'vm {label}: ~{self.vm_est(col, sel)} s, {len(sel)} tests, '
                         f'filter {filt or "(everything)"}')
            lines.append(f'  tests: {" ".join(sel)}')
        if self.demo_wanted:
            lines.append(f'demo: make demo in a fresh clone, ~{DEMO_SECS} s')
        if self.interop_wanted:
            lines.append(f'interop: {TRIXIE_VM} <-> {self.interop_old}, two VMs after '
                         f'every lane, ~{INTEROP_SECS} s')
        return ''.join(line + '\n' for line in lines)

    def shell(self):
        """The plan as bash assignments for check.sh."""
        scalars = ('stock_filter', 'first_filter', 'cloud_filter', 'cloud1_filter',
                   'sid_filter', 'troot_filter', 'troot_auto', 'sid_trixie',
                   'trixie_from', 'demo_wanted', 'interop_wanted', 'interop_old')
        arrays = ('cloud_metas', 'trixie_series', 'sid_kernels', 'troot_kernels',
                  'nic_tests')
        out = [f'{v}={shlex.quote(str(getattr(self, v)))}' for v in scalars]
        out += [f'{v}=({" ".join(shlex.quote(x) for x in getattr(self, v))})' for v in arrays]
        out.append(f'dk_shard_list=({" ".join(shlex.quote(x) for x in self.dk_shards)})')
        return ''.join(line + '\n' for line in out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--uid', type=int, default=os.geteuid())
    ap.add_argument('mode', choices=('shell', 'plan'))
    ap.add_argument('stock', nargs='*', help='the stock kernels, the first one first')
    args = ap.parse_args(argv)
    plan = Plan(load_tests(), load_durations(), os.environ, args.stock, args.uid,
                os.path.isfile(os.path.join(ROOT, 'scripts', 'debug-kernel.sh')))
    sys.stdout.write(plan.shell() if args.mode == 'shell' else plan.listing())
    return 0


if __name__ == '__main__':
    sys.exit(main())
