#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Two MPI ranks exchange checked data: 72-mpi.sh runs it under mpirun.

  72-mpi.py ROUNDS

Rank 0 sends, for each size (1 B to 8 MiB: eager and rendezvous) and each
round, a pattern that differs per size and round; rank 1 checks it and
sends it back reversed; rank 0 checks that.  Then an allreduce of 1 MiB of
64-bit integers.  Rank 0 prints one line, "mpi-ok BYTES" (the payload both
ways), or a reason and exits 1.
"""
import sys

from mpi4py import MPI

SIZES = (1, 64, 4096, 65536, 1 << 20, 8 << 20)


def pattern(size, seed):
    """SIZE bytes that start at SEED and step by 7 (mod 256)."""
    cycle = bytes((seed + 7 * i) & 0xff for i in range(256))
    return (cycle * (size // 256 + 1))[:size]


def main():
    rounds = int(sys.argv[1])
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if comm.Get_size() != 2:
        print("72-mpi.py: needs exactly 2 ranks, not %d" % comm.Get_size())
        return 1
    moved = 0
    bad = None
    for size in SIZES:
        for r in range(rounds):
            want = pattern(size, size + r)
            buf = bytearray(size)
            if rank == 0:
                comm.Send([want, MPI.BYTE], dest=1, tag=r)
                comm.Recv([buf, MPI.BYTE], source=1, tag=r)
                if bytes(buf) != want[::-1] and bad is None:
                    bad = "size %d round %d: the echo differs" % (size, r)
            else:
                comm.Recv([buf, MPI.BYTE], source=0, tag=r)
                if bytes(buf) != want and bad is None:
                    bad = "size %d round %d: rank 1 received other data" % (size, r)
                comm.Send([bytes(buf[::-1]), MPI.BYTE], dest=0, tag=r)
            moved += 2 * size
    n = 1 << 17
    mine = [rank * n + i for i in range(n)]
    import array
    src = array.array('q', mine)
    dst = array.array('q', bytes(8 * n))
    comm.Allreduce([src, MPI.INT64_T], [dst, MPI.INT64_T], op=MPI.SUM)
    if any(dst[i] != n + 2 * i for i in range(0, n, 997)) and bad is None:
        bad = "allreduce: wrong sums"
    bads = comm.gather(bad, root=0)
    if rank == 0:
        errs = [b for b in bads if b]
        if errs:
            print("mpi-FAIL " + "; ".join(errs))
            return 1
        print("mpi-ok %d" % moved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
