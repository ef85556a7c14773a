# SPDX-License-Identifier: GPL-2.0
"""Forked helper processes for the pyverbs tests of tests/user (20-24).

Each of those tests starts helper processes that hold verbs objects until
they are killed.  A fresh python3 with "import pyverbs" costs seconds under
the debug kernel, so the helper that runs a test's cases first forks a
spawner (spawner(), before it opens any device: no verbs object or device
file is inherited) that reads requests from a FIFO and forks, per request,
a process that is as fresh as a new helper process as far as the kernel
is concerned: it opens its own device context.

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
