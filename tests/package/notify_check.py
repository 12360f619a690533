#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a command as systemd would for a Type=notify unit and checks its notifications.

usage: notify_check.py COMMAND...

Binds an abstract AF_UNIX datagram socket, starts COMMAND with NOTIFY_SOCKET
naming it, waits for READY=1, sends SIGTERM, waits for STOPPING=1 and for the
process to exit 0. Prints each notification. Deadlines are generous ceilings,
not timings under test.
"""
import os
import signal
import socket
import subprocess
import sys

DEADLINE_SEC = 60


def wait_for(sock, proc, word):
    sock.settimeout(DEADLINE_SEC)
    while True:
        try:
            data = sock.recv(4096).decode()
        except socket.timeout:
            sys.exit(f"FAIL: no {word} within {DEADLINE_SEC} s (exit code {proc.poll()})")
        print("notification:", data.replace("\n", " | "))
        if word in data.split("\n"):
            return


def main():
    name = f"gregor-notify-check-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    env = dict(os.environ, NOTIFY_SOCKET="@" + name)
    proc = subprocess.Popen(sys.argv[1:], env=env)
    try:
        wait_for(sock, proc, "READY=1")
        proc.send_signal(signal.SIGTERM)
        wait_for(sock, proc, "STOPPING=1")
        rc = proc.wait(timeout=DEADLINE_SEC)
        if rc != 0:
            sys.exit(f"FAIL: exit code {rc}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    print("notify: READY=1, STOPPING=1, clean exit")


if __name__ == "__main__":
    main()
