#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/svplan.py, check.sh's planner.

  python3 tests/host/test_svplan.py [-v]     (make -C tests/host run runs it)

The last line is "svplan: N passed, N failed[, N skipped]", which check.sh
adds to its "host: unit tests" row.
"""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts'))
import svplan  # noqa: E402

K61, K612 = '6.1.0-56-amd64', '6.12.117+deb12-amd64'


class Warnings(list):
    """A warn() that keeps what it was told."""

    def __call__(self, msg):
        self.append(msg)


def meta(name, line):
    w = Warnings()
    return svplan.parse_meta(name, line, w), w


def tests_of(lines):
    """Tests from {name: sv-test line}, kunit first as load_tests has it."""
    w = Warnings()
    return [svplan.parse_meta('kunit', svplan.KUNIT_META, w)] + \
        [svplan.parse_meta(n, line, w) for n, line in lines.items()]


# a small suite with one test of each kind
SUITE = {
    '10-link': 'kernels=debug,first,stock,cloud cost=S',
    '16-dkms': 'kernels=debug,first,stock,cloud,trixie needs=dkms cost=S',
    '17-deb': 'kernels=first,stock,cloud1,trixie needs=deb cost=S',
    '20-cq': 'kernels=debug,stock,cloud cost=M',
    '50-req': 'kernels=debug,first needs=rxe quick cost=L',
    '63-rc': 'kernels=all needs=rxe,nic cost=L',
    '64-ucx': 'kernels=debug,stock,trixie,sid needs=rxe cost=M',
    '71-rc65': 'kernels=sid needs=rxe,nic cost=XL',
}
DURATIONS = {'debug': {'kunit': 44, '10-link': 40, '16-dkms': 6, '20-cq': 57, '50-req': 300,
                       '63-rc': 200},
             'stock': {'10-link': 13, '16-dkms': 5, '17-deb': 33, '20-cq': 10, '50-req': 100}}


def plan(env=None, stock=(K61, K612), uid=0, debug_script=True, suite=None, dur=None):
    return svplan.Plan(tests_of(SUITE if suite is None else suite),
                       DURATIONS if dur is None else dur, env or {}, stock, uid, debug_script)


def selection(p, filt):
    return ' '.join(p.selection(filt))


class TestMetaParse(unittest.TestCase):
    def test_fields(self):
        t, w = meta('50-req', ' kernels=debug,first needs=rxe,nic quick cost=L')
        self.assertEqual((t.kernels, t.needs, t.quick, t.cost),
                         ('debug,first', ['rxe', 'nic'], True, 'L'))
        self.assertEqual(w, [])

    def test_all_is_debug_first_stock(self):
        t, w = meta('x', 'kernels=all')
        self.assertEqual(t.kernels, 'debug,first,stock')
        self.assertTrue(t.runs_on('first') and not t.runs_on('cloud'))
        self.assertEqual(w, [])

    def test_no_kernels_runs_everywhere(self):
        t, w = meta('x', 'cost=S')
        self.assertEqual(t.kernels, 'debug,first,stock')
        self.assertEqual(w, ["x: no 'kernels=' in its sv-test line: runs everywhere"])
        t, w = meta('x', 'kernels= cost=S')
        self.assertEqual(t.kernels, 'debug,first,stock')
        self.assertEqual(len(w), 1)

    def test_bad_values(self):
        t, w = meta('x', 'kernels=debug,bogus,,stock cost=Q extra quick=1 kernels')
        self.assertEqual(t.kernels, 'debug,bogus,,stock')
        self.assertEqual(t.cost, 'Q')
        self.assertEqual(w, ["x: unknown kernel class 'bogus' in 'kernels=debug,bogus,,stock'",
                             "x: unknown cost 'Q' (S, M, L, XL)",
                             "x: unknown field 'extra' in its sv-test line",
                             "x: unknown field 'quick=1' in its sv-test line",
                             "x: unknown field 'kernels' in its sv-test line"])
        self.assertFalse(t.quick)

    def test_all_is_not_a_class_in_a_list(self):
        t, w = meta('x', 'kernels=all,cloud')
        self.assertEqual(w, ["x: unknown kernel class 'all' in 'kernels=all,cloud'"])
        self.assertFalse(t.runs_on('debug'))

    def test_empty_cost_warns(self):
        t, w = meta('x', 'kernels=debug cost=')
        self.assertEqual(w, ["x: unknown cost '' (S, M, L, XL)"])

    def test_lacks_without_first(self):
        _, w = meta('x', 'kernels=debug,stock needs=nfsd,rxe')
        self.assertEqual(w, ["x needs nfsd, which the debug kernel lacks, but does not run on 'first'"])
        _, w = meta('x', 'kernels=debug,first needs=srp')
        self.assertEqual(w, [])
        _, w = meta('x', 'kernels=stock needs=deb')
        self.assertEqual(w, [])

    def test_quick_without_stock(self):
        _, w = meta('x', 'kernels=debug,cloud quick')
        self.assertEqual(w, ["x is 'quick' but no stock kernel runs its full list"])
        _, w = meta('x', 'kernels=debug,stock quick')
        self.assertEqual(w, [])

    def test_tabs_separate_words(self):
        t, w = meta('x', 'kernels=debug\tneeds=nic,,rxe')
        self.assertEqual((t.kernels, t.needs, w), ('debug', ['nic', 'rxe'], []))


class TestSvLine(unittest.TestCase):
    def test_first_five_lines(self):
        self.assertEqual(svplan.sv_line('#!/bin/bash\n# sv-test: kernels=debug\n'), ' kernels=debug')
        self.assertEqual(svplan.sv_line('#\n' * 4 + '# sv-test: kernels=debug\n'), ' kernels=debug')
        self.assertEqual(svplan.sv_line('#\n' * 5 + '# sv-test: kernels=debug\n'), '')

    def test_whole_lines_only(self):
        # bash's read never returned a last line without its newline
        self.assertEqual(svplan.sv_line('#!/bin/bash\n# sv-test: kernels=debug'), '')

    def test_empty_tag(self):
        self.assertEqual(svplan.sv_line('# sv-test:\n'), '')
        self.assertEqual(svplan.sv_line(' # sv-test: kernels=debug\n'), '')


class TestLoadTests(unittest.TestCase):
    def test_tree(self):
        with tempfile.TemporaryDirectory() as root:
            u = os.path.join(root, 'tests', 'user')
            os.makedirs(u)
            files = {'20-cq.sh': '#!/bin/bash\n# sv-test: kernels=debug,stock cost=M\n',
                     '10-link.sh': '#!/bin/bash\n# a test without its line\n',
                     '19-l3dev.py': '# sv-test: kernels=debug\n',
                     'lib.sh': '# sv-test: kernels=debug\n'}
            for f, text in files.items():
                with open(os.path.join(u, f), 'w') as fh:
                    fh.write(text)
            with open(os.path.join(u, 'durations'), 'w') as fh:
                fh.write('# name debug stock\nkunit 44 -\n20-cq 57 10\n')
            w = Warnings()
            tests = svplan.load_tests(root, w)
            self.assertEqual([t.name for t in tests], ['kunit', '10-link', '20-cq'])
            self.assertEqual(tests[1].kernels, 'debug,first,stock')
            self.assertEqual(w, ["tests/user/10-link.sh has no '# sv-test:' line in its first 5 lines:"
                                 " runs on every kernel"])
            self.assertEqual(svplan.load_durations(root, w),
                             {'debug': {'kunit': 44, '20-cq': 57}, 'stock': {'20-cq': 10}})

    def test_this_tree(self):
        # the real tests: every line parses without a warning
        w = Warnings()
        tests = svplan.load_tests(warn=w)
        self.assertEqual(w, [])
        self.assertEqual(tests[0].name, 'kunit')
        self.assertGreater(len(tests), 10)


class TestDurations(unittest.TestCase):
    def test_parse(self):
        w = Warnings()
        d = svplan.parse_durations('# comment\n\nkunit 44 -\n  23-mw   50\n24-qp - 7\n'
                                   '25-ah x 3\n26-mc 1 2', w)
        self.assertEqual(d, {'debug': {'kunit': 44, '23-mw': 50}, 'stock': {'24-qp': 7, '25-ah': 3}})
        self.assertEqual(w, ["tests/user/durations: 25-ah: 'x' is not a number of seconds"])

    def test_missing_file(self):
        with tempfile.TemporaryDirectory() as root:
            self.assertEqual(svplan.load_durations(root), {'debug': {}, 'stock': {}})


class TestFilters(unittest.TestCase):
    def test_filter_of(self):
        self.assertEqual(svplan.filter_of(['kunit', '10-link', '20-cq']), '^(kunit|10-link|20-cq)$')
        self.assertEqual(svplan.filter_of([]), '^()$')

    def test_filter_runs(self):
        f = svplan.filter_of(['kunit', '20-cq'])
        self.assertTrue(svplan.filter_runs(f, '20-cq'))
        self.assertFalse(svplan.filter_runs(f, '20-cqx'))
        self.assertFalse(svplan.filter_runs('^()$', '20-cq'))
        self.assertTrue(svplan.filter_runs('', 'anything'))
        self.assertTrue(svplan.filter_runs('cq', '20-cq'))
        self.assertFalse(svplan.filter_runs('!^(kunit|20-cq)$', '20-cq'))
        self.assertTrue(svplan.filter_runs('!^(kunit|20-cq)$', '21-srq'))
        self.assertTrue(svplan.filter_runs('^[[:digit:]]{2}-c', '20-cq'))
        self.assertFalse(svplan.filter_runs('^[[:alpha:]]', '20-cq'))

    def test_invalid_regex(self):
        # bash's [[ =~ ]] fails on a regex it cannot compile; "!" turns that around
        self.assertFalse(svplan.filter_runs('(', '20-cq'))
        self.assertTrue(svplan.filter_runs('!(', '20-cq'))


class TestSelection(unittest.TestCase):
    def test_classes(self):
        p = plan()
        self.assertEqual(p.sel['debug'], ['kunit', '10-link', '16-dkms', '20-cq', '50-req', '63-rc',
                                          '64-ucx'])
        self.assertEqual(p.first_filter, '^(10-link|16-dkms|17-deb|50-req|63-rc)$')
        self.assertEqual(p.stock_filter, '^(kunit|10-link|16-dkms|17-deb|20-cq|63-rc|64-ucx)$')
        self.assertEqual(p.cloud_filter, '^(10-link|16-dkms|20-cq)$')
        self.assertEqual(p.cloud1_filter, '^(10-link|16-dkms|17-deb|20-cq)$')
        self.assertEqual(p.troot_filter, '^(16-dkms|17-deb|64-ucx)$')
        self.assertEqual(p.sid_filter, '^(64-ucx|71-rc65)$')
        self.assertEqual(p.nic_tests, ['63-rc', '71-rc65'])

    def test_quick_changes_no_selection(self):
        s = dict(SUITE)
        s['50-req'] = 'kernels=debug,first needs=rxe cost=L'
        a, b = plan(), plan(suite=s)
        self.assertEqual((a.first_filter, a.dk_shards), (b.first_filter, b.dk_shards))

    def test_no_debug_kernel(self):
        for p in (plan({'SV_DEBUG_KERNEL': '0'}), plan(debug_script=False)):
            self.assertEqual(p.first_filter, '')
            self.assertEqual(selection(p, p.first_filter).split(), p.names)
            self.assertNotIn('debug #1', [v[0] for v in p.vms()])

    def test_sv_tests(self):
        p = plan({'SV_TESTS': 'cq|rc'})
        for f in (p.stock_filter, p.first_filter, p.cloud_filter, p.cloud1_filter):
            self.assertEqual(f, 'cq|rc')
        self.assertEqual(p.dk_shards, ['cq|rc'])
        self.assertEqual(p.sid_filter, '^(71-rc65)$')
        self.assertEqual(p.troot_filter, '^()$')
        self.assertEqual(p.troot_kernels, [])
        self.assertEqual(p.troot_auto, 0)
        self.assertEqual(p.demo_wanted, 0)

    def test_sv_debug_tests(self):
        p = plan({'SV_DEBUG_TESTS': '^kunit$', 'SV_TESTS': 'cq'})
        self.assertEqual(p.dk_shards, ['^kunit$'])
        self.assertEqual(p.stock_filter, 'cq')

    def test_sv_debug_shards(self):
        p = plan({'SV_DEBUG_SHARDS': ' ^(kunit)$  ^(20-cq)$ x '})
        self.assertEqual(p.dk_shards, ['^(kunit)$', '^(20-cq)$', 'x'])

    def test_no_cloud_tests_no_cloud_vms(self):
        s = {n: v.replace(',cloud1', '').replace(',cloud', '') for n, v in SUITE.items()}
        self.assertEqual(plan(suite=s).cloud_metas, [])
        self.assertEqual(len(plan({'SV_TESTS': 'x'}, suite=s).cloud_metas), 2)
        self.assertEqual(plan({'SV_CLOUD': '0'}).cloud_metas, [])

    def test_trixie_needs_root(self):
        p = plan(uid=1000)
        self.assertEqual((p.trixie_series, p.trixie_vms, p.troot_auto), ([], 0, 0))
        self.assertEqual(p.troot_kernels, [K612])
        p = plan({'SV_TRIXIE_SERIES': '7.3'})
        self.assertEqual((p.trixie_series, p.trixie_vms, p.troot_auto), (['7.3'], 1, 1))

    def test_root_lanes(self):
        p = plan()
        self.assertEqual((p.sid_kernels, p.sid_trixie), ([K612], 1))
        p = plan({'SV_SID_KERNELS': 'a b', 'SV_TRIXIE_ROOT_KERNELS': 'c'})
        self.assertEqual((p.sid_kernels, p.sid_trixie, p.troot_kernels, p.troot_auto),
                         (['a', 'b'], 0, ['c'], 0))
        p = plan({'SV_SID': '0', 'SV_TRIXIE_ROOT': '0'})
        self.assertEqual((p.sid_kernels, p.sid_trixie, p.troot_kernels, p.troot_auto),
                         ([], 0, [], 0))
        p = plan(stock=())
        self.assertEqual((p.sid_kernels, p.demo_wanted), ([], 0))


class TestEstimates(unittest.TestCase):
    def test_est(self):
        s = dict(SUITE, **{'99-new': 'kernels=debug cost=XL', '98-bad': 'kernels=debug cost=Q',
                           '97-none': 'kernels=debug'})
        p = plan(suite=s)
        self.assertEqual(p.est('debug', '50-req'), 300)     # measured
        self.assertEqual(p.est('stock', '63-rc'), 80)       # not there: cost=L
        self.assertEqual(p.est('debug', '99-new'), 120)
        self.assertEqual(p.est('debug', '98-bad'), 45)      # unknown cost: M's
        self.assertEqual(p.est('debug', '97-none'), 45)

    def test_vm_est(self):
        p = plan()
        self.assertEqual(p.vm_est('debug', []), svplan.DK_VM_SECS)
        self.assertEqual(p.vm_est('debug', ['kunit', '20-cq']),
                         svplan.DK_VM_SECS + 44 + 57 + 2 * svplan.DK_TEST_SECS)
        self.assertEqual(p.vm_est('stock', ['20-cq', '63-rc']),
                         svplan.STOCK_VM_SECS + 10 + 80 + 2 * svplan.STOCK_TEST_SECS)

    def test_host_est(self):
        p = plan()
        # stock 6.1 and 6.12, two cloud kernels, Debian 13's 6.16 to 7.2
        # (headers) and 7.3 (with its image)
        full = (2 * svplan.HOST_KMOD_SECS + 2 * svplan.HOST_CLOUD_SECS
                + 7 * svplan.HOST_KMOD_SECS + svplan.HOST_CLOUD_SECS
                + svplan.HOST_FUZZ_SECS + svplan.HOST_DKMS_SECS + svplan.HOST_DEB_SECS
                + svplan.HOST_LINT_SECS + svplan.HOST_TROOT_SECS)
        self.assertEqual(p.host_est(), full)
        p = plan({'SV_FUZZ': '0', 'SV_DKMS': '0', 'SV_DEB': '0', 'SV_LINT': '0', 'SV_CLOUD': '0',
                  'SV_TRIXIE': '0'})
        self.assertEqual(p.host_est(), 2 * svplan.HOST_KMOD_SECS)
        # only "0" turns a stage off, as check.sh's tests of the variables
        p = plan({'SV_FUZZ': 'yes', 'SV_DKMS': '', 'SV_DEB': '0', 'SV_LINT': '0', 'SV_CLOUD': '0',
                  'SV_TRIXIE': '0'})
        self.assertEqual(p.host_est(), 2 * svplan.HOST_KMOD_SECS + svplan.HOST_FUZZ_SECS
                         + svplan.HOST_DKMS_SECS)

    def test_other_lane(self):
        p = plan({'SV_CLOUD': '0', 'SV_TRIXIE': '0', 'SV_DEMO': '0'}, stock=(K61,))
        self.assertEqual(p.other_lane(), p.vm_est('stock', p.sel['first']) + p.host_est())
        p = plan({'SV_CLOUD': '0', 'SV_TRIXIE': '0', 'SV_DEBUG_KERNEL': '0'}, stock=(K61, K612))
        self.assertEqual(p.other_lane(), p.vm_est('stock', p.sel['stock'])
                         + p.vm_est('stock', p.names) + svplan.DEMO_SECS)


class TestShards(unittest.TestCase):
    def test_balance(self):
        # no other VMs: debug #2 gets half the debug time, less the other lane's host work
        p = plan({'SV_CLOUD': '0', 'SV_TRIXIE': '0', 'SV_FUZZ': '0', 'SV_DKMS': '0',
                  'SV_DEB': '0', 'SV_LINT': '0'}, stock=())
        # kunit 44, 10-link 40, 16-dkms 6, 20-cq 57, 50-req 300, 63-rc 200, 64-ucx M=45:
        # total 65 + 692 + 7 * 4 = 785, half 392, #2: 393 - 65 = 328 of tests, #1: 392 - 65 = 327
        # longest first: 50-req (#2: 328 > 327), 63-rc (#1), 20-cq (#1: 123 > 24), 64-ucx
        # (#1: 62 > 24), kunit (#2: 24 > 13), 10-link (#1: 13 > -24), 16-dkms (#2: -24 > -33)
        self.assertEqual(p.dk_shards, ['^(10-link|20-cq|63-rc|64-ucx)$',
                                       '^(kunit|16-dkms|50-req)$'])

    def test_unknown_test_sized_by_cost(self):
        s = {'10-a': 'kernels=debug cost=XL', '20-b': 'kernels=debug cost=S'}
        env = {'SV_CLOUD': '0', 'SV_TRIXIE': '0', 'SV_FUZZ': '0', 'SV_DKMS': '0',
               'SV_DEB': '0', 'SV_LINT': '0'}
        # 10-a unmeasured: XL, 120 s, the longest: to #2 (room 139 of 204 - 65),
        # 20-b (110) to #1 (138), kunit (100) to #1 (24 against 15)
        d = {'debug': {'kunit': 100, '20-b': 110}, 'stock': {}}
        self.assertEqual(plan(env, stock=(), suite=s, dur=d).dk_shards,
                         ['^(kunit|20-b)$', '^(10-a)$'])
        # measured at 10 s it goes last, to #1 (34 against 25)
        d['debug']['10-a'] = 10
        self.assertEqual(plan(env, stock=(), suite=s, dur=d).dk_shards,
                         ['^(kunit|10-a)$', '^(20-b)$'])

    def test_long_other_lane_leaves_one_shard(self):
        p = plan()
        self.assertEqual(p.dk_shards, [svplan.filter_of(p.sel['debug'])])

    def test_three_shards(self):
        p = plan({'SV_CLOUD': '0', 'SV_TRIXIE': '0'}, stock=())
        shards = p.debug_shards(3)
        self.assertEqual(len(shards), 3)
        got = sorted(n for f in shards for n in p.names if svplan.filter_runs(f, n))
        self.assertEqual(got, sorted(p.sel['debug']))

    def test_same_times_name_order(self):
        s = {'20-b': 'kernels=debug cost=M', '10-a': 'kernels=debug cost=M'}
        d = {'debug': {'kunit': 45}, 'stock': {}}
        p = plan({'SV_CLOUD': '0', 'SV_TRIXIE': '0', 'SV_FUZZ': '0', 'SV_DKMS': '0',
                  'SV_DEB': '0', 'SV_LINT': '0'}, stock=(), suite=s, dur=d)
        # equal times: name order (10-a, 20-b, kunit); equal rooms: the lower
        # shard (10-a and kunit to #1); each shard in guest-tests.sh's order
        self.assertEqual(p.dk_shards, ['^(kunit|10-a)$', '^(20-b)$'])


class TestOrderAndListing(unittest.TestCase):
    def test_launch_order(self):
        p = plan({'SV_DEBUG_SHARDS': 'a b c'})
        self.assertEqual([v[0] for v in p.vms()], [
            'debug #1', 'debug #2', K612, "Debian 13's 7.3 (amd64)",
            'cloud (linux-image-cloud-amd64)', 'cloud (linux-image-6.12-cloud-amd64)',
            'debug #3', f'{K61} (first)', f'{K612} (sid root)',
            "Debian 13's 7.3 (amd64) (Debian 13 root)",
            "Debian 13's 7.3 cloud (Debian 13 root)"])

    def test_upgrade_cloud_vm(self):
        # the upgrade install (SV_TRIXIE_FROM, default 6.12) adds the 7.3
        # cloud kernel's 17-deb VM; set but empty, or not root, it does not
        cloud = "Debian 13's 7.3 cloud (Debian 13 root)"
        self.assertIn(cloud, [v[0] for v in plan({}).vms()])
        self.assertEqual(plan({}).trixie_from, '6.12')
        self.assertNotIn(cloud, [v[0] for v in plan({'SV_TRIXIE_FROM': ''}).vms()])
        self.assertNotIn(cloud, [v[0] for v in plan({'SV_TESTS': '^(64-ucx)$'}).vms()])

    def test_listing(self):
        p = plan({'SV_CLOUD': '0', 'SV_TRIXIE': '0', 'SV_SID': '0', 'SV_TESTS': '^(20-cq|63-rc)$'},
                 stock=(K61,))
        self.assertEqual(p.listing(),
                         'vm debug #1: ~330 s, 2 tests, filter ^(20-cq|63-rc)$\n'
                         '  tests: 20-cq 63-rc\n'
                         'host stages beside debug #1, before debug #2: ~585 s\n'
                         f'vm {K61} (first): ~107 s, 2 tests, filter ^(20-cq|63-rc)$\n'
                         '  tests: 20-cq 63-rc\n')

    def test_listing_everything_demo(self):
        p = plan({'SV_DEBUG_KERNEL': '0', 'SV_CLOUD': '0', 'SV_TRIXIE': '0', 'SV_SID': '0',
                  'SV_TRIXIE_ROOT': '0'}, stock=(K61,))
        lines = p.listing().splitlines()
        self.assertTrue(lines[0].startswith(f'vm {K61} (first): '))
        self.assertTrue(lines[0].endswith(', 9 tests, filter (everything)'))
        self.assertEqual(lines[-1], f'demo: make demo in a fresh clone, ~{svplan.DEMO_SECS} s')

    def test_interop(self):
        # the first stock 6.1 against Debian 13's 7.3: root, SV_TRIXIE on
        p = plan({}, stock=(K612, K61))
        self.assertEqual((p.interop_wanted, p.interop_old), (1, K61))
        self.assertEqual(p.listing().splitlines()[-1],
                         f"interop: {svplan.TRIXIE_VM} <-> {K61}, two VMs after every lane, "
                         f"~{svplan.INTEROP_SECS} s")
        for env, stock, uid in (({'SV_INTEROP': '0'}, (K61,), 0), ({'SV_TRIXIE': '0'}, (K61,), 0),
                                ({}, (K61,), 1000), ({}, (K612,), 0),
                                ({'SV_TESTS': '^(20-cq)$'}, (K61,), 0),
                                ({'SV_DEBUG_TESTS': '^(20-cq)$'}, (K61,), 0)):
            p = plan(env, stock=stock, uid=uid)
            self.assertEqual((p.interop_wanted, p.interop_old), (0, ''), env)
        self.assertEqual(plan({'SV_TESTS': 'interop|20-cq'}, stock=(K61,)).interop_wanted, 1)

    def test_shell_evals(self):
        p = plan({'SV_DEBUG_SHARDS': "^(kunit)$ it's"})
        script = p.shell() + 'declare -p dk_shard_list nic_tests troot_auto stock_filter\n'
        out = subprocess.run(['bash', '-c', script], capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.splitlines(), [
            'declare -a dk_shard_list=([0]="^(kunit)\\$" [1]="it\'s")',
            'declare -a nic_tests=([0]="63-rc" [1]="71-rc65")',
            'declare -- troot_auto="1"',
            'declare -- stock_filter="^(kunit|10-link|16-dkms|17-deb|20-cq|63-rc|64-ucx)\\$"'])


if __name__ == '__main__':
    res = unittest.main(exit=False, verbosity=2 if '-v' in sys.argv else 1).result
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    skipped = len(res.skipped)
    line = f'svplan: {res.testsRun - failed - skipped} passed, {failed} failed'
    print(line + (f', {skipped} skipped' if skipped else ''))
    sys.exit(1 if failed else 0)
