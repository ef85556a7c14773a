#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rdma-core's own test suite for tests/user/63-rdma-core.sh.

  63-rdma-core.py run SUITE DEV OUT   run the suite in directory SUITE (a
                                      copy of python3-pyverbs' tests with
                                      the .gz files unpacked) on DEV, the
                                      way its run_tests.py runs it: same
                                      loader, same arguments, no --gid (so
                                      the first valid GID, index 0); each
                                      test's outcome goes to OUT as a line
                                      "STATUS TEST-ID", STATUS one of ok,
                                      skip, fail, error, xfail, xpass; the
                                      tracebacks to stdout; and to OUT.why
                                      (OUT without .out) "STATUS TEST-ID:
                                      WHY" for each test that did not pass
                                      (a skip's reason, an error's last line)
  63-rdma-core.py counts OUT          "N ok, N failed, N errors, N skipped"
  63-rdma-core.py compare OURS THEIRS every test that passed in THEIRS (a
                                      Soft-RoCE run) and did not pass in
                                      OURS, one per line; exit 1 if any

Exit status of run: 0 when the suite ran (whatever its outcome: the
caller judges from OUT), 2 when it could not be loaded.
"""
import os
import sys
import unittest
from importlib.machinery import SourceFileLoader


class Recorder(unittest.TextTestResult):
    """a TextTestResult that also gives every test's outcome by id"""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.started = []

    def startTest(self, test):
        super().startTest(test)
        self.started.append(test.id())

    def outcomes(self):
        """(status, id, why) for every test run, from the result's own
        lists; why: a skip's reason, the last line of an error's or a
        failure's traceback, else empty"""
        status, why = {}, {}
        for name, entries in (('fail', self.failures), ('error', self.errors),
                              ('skip', self.skipped),
                              ('xfail', self.expectedFailures)):
            for test, text in entries:
                status[test.id()] = name
                lines = [ln for ln in str(text).splitlines() if ln.strip()]
                why[test.id()] = lines[-1].strip() if lines else ''
        for test in self.unexpectedSuccesses:
            status[test.id()] = 'xpass'
        # a class or module fixture's error names no started test
        extra = [t for t in status if t not in set(self.started)]
        return [(status.get(t, 'ok'), t, why.get(t, ''))
                for t in self.started + extra]


def memo_netdev_lookups():
    """Look a netdev's name and address up once per run, not per test.

    Every test's setUp (RDMATestCase._get_ip_mac) asks, for each valid GID
    of the port, which netdev /sys/class/infiniband/DEV/device/net/ lists
    ("ls") and that netdev's first address ("ip -j addr show"): two execs
    per GID per test, skipped tests included, once the device has a
    device/net/ directory.  Under TCG an exec costs 50-120 ms, so for 273
    tests and three GIDs that is some 1,600 execs and four minutes (the
    275 s of the first run with the sysfs parent; 30 s without).  The
    answers do not change during a run: the same lookups, made once.
    """
    import functools  # pylint: disable=import-outside-toplevel
    cls = getattr(sys.modules.get('tests.base'), 'RDMATestCase', None)
    for name in ('get_net_name', 'get_ip_mac_address'):
        func = getattr(cls, name, None)
        if func is None:
            print(f"note: the suite has no RDMATestCase.{name}: not memoized")
            continue
        setattr(cls, name,
                staticmethod(functools.lru_cache(maxsize=None)(func)))


class InertProviders:
    """Import hook for the run through libsoftverbs: pyverbs' mlx5 and efa
    provider modules become inert stand-ins.

    The suite's shared helpers (utils.py, via efa_base.py and mlx5_base.py)
    import pyverbs.providers.efa and .mlx5 at the top, and those extension
    modules link libefa/libmlx5, which need libibverbs' private provider ABI
    (IBVERBS_PRIVATE_34) that libsoftverbs does not have: one failed import
    stops the whole suite from loading.  The tests that use the providers
    (test_mlx5_*, test_efa*) are left out of every run by the caller, so
    nothing calls into a stand-in; the helpers only need the names to exist
    (a class for isinstance(), a constant for a comparison never reached).
    A stand-in's every attribute is a fresh empty class, never a function
    that could pretend to succeed."""
    PREFIXES = ('pyverbs.providers.mlx5', 'pyverbs.providers.efa')

    def find_spec(self, name, path=None, target=None):
        # pylint: disable=unused-argument
        if not name.startswith(self.PREFIXES):
            return None
        import importlib.util  # pylint: disable=import-outside-toplevel
        return importlib.util.spec_from_loader(name, self, is_package=True)

    def create_module(self, spec):
        import types  # pylint: disable=import-outside-toplevel
        mod = types.ModuleType(spec.name)
        mod.__path__ = []
        mod.__getattr__ = lambda attr: type(attr, (), {})
        return mod

    def exec_module(self, module):
        pass


def run(suite, dev, out):
    # what run_tests.py does, with a runner that records the outcomes
    if os.environ.get('SV_63_ULIB'):
        sys.meta_path.insert(0, InertProviders())
    sys.path.insert(0, suite)
    sys.argv = [os.path.join(suite, 'run_tests.py'), '--dev', dev, '-v']
    try:
        from args_parser import parser  # pylint: disable=import-outside-toplevel
        tests = SourceFileLoader(
            'tests', os.path.join(suite, '__init__.py')).load_module()
    except Exception as err:  # pylint: disable=broad-except
        print(f"cannot load the suite from {suite}: {err}", flush=True)
        return 2
    parser.parse_args()
    memo_netdev_lookups()
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2,
                                     resultclass=Recorder)
    prog = unittest.main(module=tests, testRunner=runner, exit=False)
    why_path = (out[:-4] if out.endswith('.out') else out) + '.why'
    with open(out, 'w', encoding='utf-8') as f, \
            open(why_path, 'w', encoding='utf-8') as w:
        for status, test_id, why in prog.result.outcomes():
            f.write(f"{status} {test_id}\n")
            if status not in ('ok', 'xfail'):
                w.write(f"{status} {test_id}: {why}\n")
    check_ulib()
    return 0


def check_ulib():
    """With SV_63_ULIB set, say whether this process ran on that
    libsoftverbs alone: it is mapped, and no libibverbs, provider (lib*-rdmav*)
    or provider library (libmlx5, libefa) is"""
    ulib = os.environ.get('SV_63_ULIB')
    if not ulib:
        return
    with open('/proc/self/maps', encoding='utf-8') as f:
        paths = {line.split()[-1] for line in f if '/' in line}
    bad = sorted(p for p in paths if '/libibverbs.so' in p or '-rdmav' in p
                 or '/libmlx5.so' in p or '/libefa.so' in p)
    ok = ulib in paths and not bad
    print(f"ulib maps {'ok' if ok else 'BAD'}: {ulib} "
          f"{'mapped' if ulib in paths else 'not mapped'}; "
          f"rdma-core: {', '.join(bad) or 'none'}", flush=True)


def load(path):
    outcomes = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            status, test_id = line.split(None, 1)
            outcomes[test_id.strip()] = status
    return outcomes


def counts(path):
    got = list(load(path).values())
    print(f"{got.count('ok') + got.count('xfail')} ok, "
          f"{got.count('fail') + got.count('xpass')} failed, "
          f"{got.count('error')} errors, {got.count('skip')} skipped")
    return 0


def compare(ours, theirs):
    ours, theirs = load(ours), load(theirs)
    worse = [t for t, s in sorted(theirs.items())
             if s in ('ok', 'xfail') and ours.get(t) not in ('ok', 'xfail')]
    for t in worse:
        print(f"passes on Soft-RoCE, {ours.get(t, 'missing')} here: {t}")
    return 1 if worse else 0


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'run' and len(args) == 3:
        return run(*args)
    if cmd == 'counts' and len(args) == 1:
        return counts(*args)
    if cmd == 'compare' and len(args) == 2:
        return compare(*args)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
