#!/usr/bin/env python3
"""CPU seconds (user + system) used so far, from /proc (Benchmarks/Load/run.sh, issue 28).

    cpu_seconds.py PID [PID...]          each process's own CPU, one JSON list
    cpu_seconds.py --tree POSTMASTER      PostgreSQL: the postmaster's own CPU, its reaped
                                          children's (cutime + cstime: backends that already
                                          exited) and every live child's, as one number

Run it before and after a load; the differences are the run's CPU.
"""
import json
import os
import sys

TICK = os.sysconf("SC_CLK_TCK")


def fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    # The command name is in parentheses and may hold spaces; the rest are numbers.
    return text[text.rindex(")") + 2:].split()


def own(pid):
    f = fields(pid)
    return (int(f[11]) + int(f[12])) / TICK  # utime, stime (fields 14 and 15)


def tree(master):
    f = fields(master)
    total = (int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])) / TICK  # + cutime, cstime
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            child = fields(entry)
            if int(child[1]) == master:  # ppid
                total += (int(child[11]) + int(child[12])) / TICK
        except (OSError, ValueError):
            continue  # exited meanwhile: its CPU moves to cutime/cstime
    return total


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    if args[0] == "--tree":
        print(round(tree(int(args[1])), 3))
    else:
        print(json.dumps([round(own(int(p)), 3) for p in args]))
