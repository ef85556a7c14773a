# SPDX-License-Identifier: GPL-2.0
"""The helper-process side of tests/user/lib/objects.sh: how the pyverbs
helpers of the verbs-object tests (20-cq to 24-qp) run.

A fresh python3 with "import pyverbs" costs seconds under the debug kernel,
so a test starts its helper once, as

  NN-name.py [--spawn FIFO] DEV [ARG...] CASE...

and that one process runs all the cases (main(): a line "--- CASE" before
each, which names the failing case to the test), exits 0 when all passed,
77 when pyverbs cannot be imported (no_pyverbs(): the test skips), else
non-zero with a traceback.

With --spawn it first forks a spawner (spawner(), before it opens any
device: no verbs object or device file is inherited) that reads requests
from FIFO and forks, per request, a process that is as fresh as a new
helper process as far as the kernel is concerned: it opens its own device
context.  The tests use it for the processes that hold verbs objects
("DEV ... hold N": print "ready" once they are held, then sleep until
killed).

A request is one line "OUT ARG...": the forked process writes "pid N" to
the file OUT (created), then runs run(ARGS) with stdout and stderr on OUT,
and ends with a line "exit RC".  The spawner exits at the FIFO's EOF (the
test shell closes its end, or exits), and the processes it forked are
killed then.
"""
import ctypes
import os
import signal
import sys
import traceback


def _child(out, args, run):
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    # killed with the spawner, so nothing outlives the test (PR_SET_PDEATHSIG)
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    sys.stdout.reconfigure(line_buffering=True)
    print(f"pid {os.getpid()}")
    rc = 0
    try:
        run(args)
    except SystemExit as err:
        rc = err.code if isinstance(err.code, int) else 1
    except BaseException:       # pylint: disable=broad-except
        traceback.print_exc()
        rc = 1
    print(f"exit {rc}")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)


def spawner(fifo, run):
    """fork the spawner serving FIFO; returns in the caller at once"""
    sys.stdout.flush()
    sys.stderr.flush()
    if os.fork():
        return
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        # the held processes are killed by the test: reap them unseen
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        with open(fifo, encoding="utf-8") as f:
            for line in f:
                words = line.split()
                if not words:
                    continue
                if os.fork() == 0:
                    _child(words[0], words[1:], run)
    finally:
        os._exit(0)


def main(case, hold, lead=1):
    """the helper's entry point, for the command line
    [--spawn FIFO] LEAD... (hold N | CASE...), where LEAD is the first
    lead words (the device first): hold(*LEAD, N), or case(*LEAD, CASE)
    for each CASE; the processes of the spawner serving FIFO (started
    first) run the same way"""
    def run(argv):
        _run(argv, case, hold, lead)
    argv = sys.argv[1:]
    if argv[:1] == ["--spawn"]:
        spawner(argv[1], run)
        argv = argv[2:]
    run(argv)


def _run(argv, case, hold, lead):
    head, rest = argv[:lead], argv[lead:]
    if not rest:
        print(sys.modules["__main__"].__doc__, file=sys.stderr)
        sys.exit(2)
    if rest[0] == "hold":
        hold(*head, int(rest[1]))
        return
    # several cases per process: python and pyverbs start once; each case
    # still opens its own context
    sys.stdout.reconfigure(line_buffering=True)
    for name in rest:
        print(f"--- {name}")
        case(*head, name)


def no_pyverbs(err):
    """pyverbs cannot be imported: exit 77, on which the test skips (one
    process instead of a separate probe)"""
    print(f"SKIP: {err}")
    sys.exit(77)
