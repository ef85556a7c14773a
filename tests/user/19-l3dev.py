#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A tun forwarder for tests/user/19-l3dev.sh.

  19-l3dev.py NS_A TUN_A NS_B TUN_B

Creates tun device TUN_A (IFF_TUN, no packet information) in network
namespace NS_A and TUN_B in NS_B (both under /run/netns), prints "ready",
and copies every IP packet one device's process side reads to the other's,
until killed.  Closing the descriptors at exit removes both devices.
"""
import ctypes
import fcntl
import os
import select
import struct
import sys

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000

libc = ctypes.CDLL(None, use_errno=True)


def open_tun(netns, name):
    """A tun device NAME in NETNS: the namespace of /dev/net/tun's opener."""
    nsfd = os.open("/run/netns/" + netns, os.O_RDONLY)
    if libc.setns(nsfd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "setns " + netns + ": " + os.strerror(err))
    os.close(nsfd)
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF,
                struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def main():
    ns_a, tun_a, ns_b, tun_b = sys.argv[1:5]
    a = open_tun(ns_a, tun_a)
    b = open_tun(ns_b, tun_b)
    peer = {a: b, b: a}
    print("ready", flush=True)
    while True:
        ready, _, _ = select.select([a, b], [], [])
        for fd in ready:
            pkt = os.read(fd, 65536)
            try:
                os.write(peer[fd], pkt)
            except OSError:
                pass    # the other side is down: a lost packet, as on a wire


if __name__ == "__main__":
    main()
