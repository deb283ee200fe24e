#!/usr/bin/env python3
"""powerfs.py's promises, on a real mount: what a cut keeps and what it forgets.
Run as root (FUSE mount with allow_other); `make power-loss-smoke` runs it first."""

import json
import os
import shutil
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import powerfs  # noqa: E402

failures = []


def expect(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def sync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def write(path, data, offset=0, sync=False, create=True):
    fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
    os.pwrite(fd, data, offset)
    if sync:
        os.fsync(fd)
    os.close(fd)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    work = tempfile.mkdtemp(prefix="rb-powerfs-test-")
    backing, mount = os.path.join(work, "disk"), os.path.join(work, "mnt")
    os.makedirs(backing)
    powerfs.start(backing, mount)
    try:
        # Set up a durable state: a synced file in a synced directory, a synced subdirectory.
        write(f"{mount}/kept", b"a" * 1500, sync=True)
        os.mkdir(f"{mount}/sub")
        write(f"{mount}/sub/inner", b"i" * 10, sync=True)
        sync_dir(f"{mount}/sub")
        write(f"{mount}/doomed", b"d" * 10, sync=True)
        write(f"{mount}/renamed-from", b"r" * 10, sync=True)
        sync_dir(mount)
        # Unsynced changes: all visible at once.
        write(f"{mount}/kept", b"b" * 1000, offset=1000, create=False)       # data, no fsync
        write(f"{mount}/new-unsynced-dir", b"n", sync=True)                   # file synced, directory not
        os.unlink(f"{mount}/doomed")                                          # unlink, directory not synced
        os.rename(f"{mount}/renamed-from", f"{mount}/renamed-to")             # rename, not synced
        os.mkdir(f"{mount}/sub2")
        write(f"{mount}/sub2/x", b"x", sync=True)
        sync_dir(f"{mount}/sub2")                                             # sub2's own entry not synced
        expect(read(f"{mount}/kept") == b"a" * 1000 + b"b" * 1000, "an unsynced write is visible to readers at once")
        expect(not os.path.exists(f"{mount}/doomed"), "an unlink is visible at once")
        cut = powerfs.send(mount, {"command": "cut", "tear": False})
        try:
            os.listdir(mount)
            expect(False, "after a cut the mount refuses operations")
        except OSError:
            expect(True, "after a cut the mount refuses operations (EIO)")
        powerfs.stop(mount)
        powerfs.start(backing, mount)
        expect(read(f"{mount}/kept") == b"a" * 1500, "unsynced file data is gone after the cut; synced data kept")
        expect(not os.path.exists(f"{mount}/new-unsynced-dir"), "a synced file in an unsynced directory is gone")
        expect(read(f"{mount}/doomed") == b"d" * 10, "an unlink whose directory was not synced is undone")
        expect(os.path.exists(f"{mount}/renamed-from") and not os.path.exists(f"{mount}/renamed-to"),
               "an unsynced rename is undone")
        expect(not os.path.exists(f"{mount}/sub2"), "a new directory whose parent was not synced is gone")
        expect(read(f"{mount}/sub/inner") == b"i" * 10, "a synced file in a synced subdirectory is kept")
        expect(cut["names_undone"] == 4 and cut["undo_errors"] == [], f"the cut's report: {json.dumps(cut)}")

        # Durable names: rename + directory fsync survives; unlink + directory fsync survives.
        os.rename(f"{mount}/renamed-from", f"{mount}/renamed-to")
        os.unlink(f"{mount}/doomed")
        sync_dir(mount)
        # A torn write: the last unsynced write keeps a 512-byte-aligned prefix.
        write(f"{mount}/kept", b"t" * 3000, offset=100, create=False)
        cut = powerfs.send(mount, {"command": "cut", "tear": True, "seed": 1})
        powerfs.stop(mount)
        powerfs.start(backing, mount)
        expect(os.path.exists(f"{mount}/renamed-to") and not os.path.exists(f"{mount}/renamed-from"),
               "a rename followed by a directory fsync survives")
        expect(not os.path.exists(f"{mount}/doomed"), "an unlink followed by a directory fsync survives")
        data = read(f"{mount}/kept")
        kept = cut["torn"]["kept"]
        expect((100 + kept) % 512 == 0 and 0 < kept < 3000, f"the tear falls on a 512-byte boundary (kept {kept} of 3000)")
        expect(data[:100] == b"a" * 100 and data[100:100 + kept] == b"t" * kept
               and data[100 + kept:1500] == b"a" * (1500 - 100 - kept) and len(data) == max(1500, 100 + kept),
               "a torn write: its prefix reached the disk, the rest is the old data")

        # An armed cut fires at the chosen operation, which then fails.
        powerfs.send(mount, {"command": "arm", "trigger": {"ops": ["write"], "path_contains": "armed", "skip": 1}})
        write(f"{mount}/armed", b"1", sync=True)
        sync_dir(mount)
        try:
            write(f"{mount}/armed", b"2", offset=1, create=False)
            expect(False, "the armed operation fails")
        except OSError:
            expect(True, "the armed cut fired at the second write to the file, which failed")
        expect(powerfs.send(mount, {"command": "status"})["frozen"], "the armed cut froze the filesystem")
        powerfs.stop(mount)
        powerfs.start(backing, mount)
        expect(read(f"{mount}/armed") == b"1", "the armed cut kept the synced first write only")

        # SQLite through the mount: WAL, shared memory, locks.
        db = sqlite3.connect(f"{mount}/t.sqlite")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE t (x)")
        db.execute("INSERT INTO t VALUES (1)")
        db.commit()
        expect(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "SQLite in WAL mode works on the mount")
        db.close()
    finally:
        powerfs.stop(mount)
    expect(not powerfs.mounted(mount), "nothing left mounted")

    # The "linux" rule for names: fsync of a new file (or directory) keeps its own name too.
    backing, mount = os.path.join(work, "disk2"), os.path.join(work, "mnt2")
    os.makedirs(backing)
    powerfs.start(backing, mount, model="linux")
    try:
        os.mkdir(f"{mount}/d")
        write(f"{mount}/d/f", b"f", sync=True)     # the file synced: its name and d's name kept
        write(f"{mount}/g", b"g")                    # neither the file nor the directory synced
        powerfs.send(mount, {"command": "cut"})
        powerfs.stop(mount)
        powerfs.start(backing, mount, model="linux")
        expect(os.path.exists(f"{mount}/d/f") and read(f"{mount}/d/f") == b"f",
               "linux rule: a synced new file keeps its name and its new directory's")
        expect(not os.path.exists(f"{mount}/g"), "linux rule: an unsynced new file is still gone")
    finally:
        powerfs.stop(mount)
    shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"test_powerfs: {len(failures)} FAILED")
        sys.exit(1)
    print("test_powerfs: all passed")


if __name__ == "__main__":
    main()
