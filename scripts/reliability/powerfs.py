#!/usr/bin/python3
"""powerfs: a FUSE passthrough filesystem that forgets, on a "power cut", everything that was
not made durable (RELIABILITY.md, "Power loss"). The idea is LazyFS's (Jepsen) and SQLite's
crash-test VFS; this one is written here, on Debian's pyfuse3 (python3-pyfuse3, run by
/usr/bin/python3: prebuilt against the system's libfuse3, so nothing is compiled).

Every operation passes straight through to a backing directory (the "page cache": readers see
each write at once), and powerfs keeps what it needs to undo the operation:
  file data   the first pre-image of every 512-byte sector written (and the size) since the
              file's last fsync/fdatasync; fsync of the file forgets them (the data is "on disk");
  names       create, mkdir, mknod, symlink, link, unlink, rmdir and rename are logged with
              their undo; one becomes durable once every directory it touched has been fsync'd
              after it (a rename touches both its directories); until then it is undone. That
              is POSIX's promise (`--names posix`, the default). `--names linux` adds what ext4
              and XFS do and PostgreSQL relies on: fsync of a newly created or renamed file or
              directory also makes its own name durable (and its new parents', upwards).
A cut freezes the filesystem at once (every later operation fails with EIO, as on a dead
machine), then rolls the backing directory back: file data to its synced sectors and size,
then non-durable names in reverse order. `--tear` keeps a 512-byte-aligned prefix of the last
unsynced write (a torn write). After a cut the harness kills what ran on the mount, unmounts
and mounts again (a fresh kernel cache, like a reboot).

Commands (the state beside MOUNT in MOUNT.powerfs/: control socket, pid, log):
    powerfs.py start BACKING MOUNT [--names posix|linux]   mount in the background
    powerfs.py cut MOUNT [--tear] [--seed N]
    powerfs.py arm MOUNT JSON            cut by itself at a chosen operation (see Trigger)
    powerfs.py status MOUNT
    powerfs.py sync MOUNT                sync(1): everything written so far becomes durable
    powerfs.py remount MOUNT             unmount (after a cut) and mount the same backing again
    powerfs.py stop MOUNT                unmount and end the daemon
    powerfs.py serve BACKING MOUNT       the daemon itself (foreground)
"""

import errno
import json
import os
import random
import shutil
import socket
import stat
import subprocess
import sys
import time

SECTOR = 512


def state_dir(mount):
    return os.path.abspath(mount).rstrip("/") + ".powerfs"


class Trigger:
    """A cut armed to happen at one chosen operation: the `skip`+1-th operation whose kind is in
    `ops` ("*" for any mutating one) and whose path contains `path_contains` and none of
    `path_excludes`. The operation itself then fails (the cut came first)."""

    def __init__(self, spec):
        self.ops = set(spec.get("ops", ["*"]))
        self.contains = spec.get("path_contains", "")
        self.excludes = spec.get("path_excludes", [])
        self.skip = int(spec.get("skip", 0))
        self.tear = bool(spec.get("tear", False))
        self.seed = spec.get("seed")

    def matches(self, kind, path):
        if "*" not in self.ops and kind not in self.ops:
            return False
        if self.contains not in path or any(e in path for e in self.excludes):
            return False
        if self.skip > 0:
            self.skip -= 1
            return False
        return True


def make_operations(pyfuse3, backing, model="posix"):
    FUSEError = pyfuse3.FUSEError

    class PowerFS(pyfuse3.Operations):
        enable_writeback_cache = False

        def __init__(self):
            super().__init__()
            self.backing = backing
            self.model = model
            self.trash = backing.rstrip("/") + ".trash"
            os.makedirs(self.trash, exist_ok=True)
            self.trash_counter = 0
            self.paths = {pyfuse3.ROOT_INODE: {backing}}   # inode -> backing paths
            self.lookups = {}
            self.fd_inode = {}
            self.frozen = False
            self.cut_report = None
            self.trigger = None
            # inode -> {"fd": backing fd, "size": synced size, "sectors": {index: pre-image}, "writes": n}
            self.dirty = {}
            self.last_write = None                 # (inode, offset, data) of the last unsynced write
            self.names = []                        # [{"dirs": set of dir inodes not yet synced, "undo": [...], "what": str}]
            self.counts = {"ops": 0, "writes": 0, "fsyncs": 0, "dir_fsyncs": 0, "name_ops": 0}

        # --- bookkeeping -------------------------------------------------------------------
        def path(self, inode):
            paths = self.paths.get(inode)
            if not paths:
                raise FUSEError(errno.ENOENT)
            return next(iter(paths))

        def path_or_none(self, inode):
            """Any path of `inode`, or "" for a file unlinked while still open (it may be written)."""
            paths = self.paths.get(inode)
            return next(iter(paths)) if paths else ""

        def remember(self, inode, path):
            self.paths.setdefault(inode, set()).add(path)
            self.lookups[inode] = self.lookups.get(inode, 0) + 1

        def forget_path(self, inode, path):
            paths = self.paths.get(inode)
            if paths:
                paths.discard(path)

        def attrs(self, path=None, fd=None):
            try:
                st = os.fstat(fd) if fd is not None else os.lstat(path)
            except OSError as e:
                raise FUSEError(e.errno)
            entry = pyfuse3.EntryAttributes()
            for name in ("st_ino", "st_mode", "st_nlink", "st_uid", "st_gid", "st_rdev", "st_size",
                         "st_atime_ns", "st_mtime_ns", "st_ctime_ns"):
                setattr(entry, name, getattr(st, name))
            entry.generation = 0
            entry.entry_timeout = 1
            entry.attr_timeout = 1
            entry.st_blksize = 4096
            entry.st_blocks = (st.st_size + 511) // 512
            if path == self.backing:
                entry.st_ino = pyfuse3.ROOT_INODE
            return entry

        def check(self, kind, path):
            """Every mutating operation starts here: refused after a cut; may fire the armed cut."""
            if self.frozen:
                raise FUSEError(errno.EIO)
            self.counts["ops"] += 1
            where = os.path.relpath(path, self.backing) if path else "(unlinked)"
            if self.trigger is not None and self.trigger.matches(kind, where):
                trigger, self.trigger = self.trigger, None
                self.cut(trigger.tear, trigger.seed, reason=f"armed: {kind} {where}")
                raise FUSEError(errno.EIO)

        def dir_inode(self, path):
            return os.lstat(path).st_ino if path != self.backing else pyfuse3.ROOT_INODE

        def to_trash(self, path):
            self.trash_counter += 1
            spot = os.path.join(self.trash, str(self.trash_counter))
            os.link(path, spot, follow_symlinks=False)
            return spot

        def log_name(self, what, dirs, undo, trash=(), inode=None):
            self.counts["name_ops"] += 1
            self.names.append({"what": what, "dirs": set(dirs), "undo": undo, "trash": list(trash), "inode": inode})

        def names_synced(self, directory=None, inode=None):
            """A directory's fsync makes every earlier entry in it durable. Under the "linux"
            model (ext4/XFS: fsync of a newly created or renamed file or directory also persists
            its name, and its new parents' names), syncing `inode` makes durable the entries
            that named it, then those that named their directories, upwards."""
            kept, parents = [], set()
            for item in self.names:
                if directory is not None:
                    item["dirs"].discard(directory)
                if inode is not None and item["inode"] == inode and item["dirs"]:
                    parents |= item["dirs"]
                    item["dirs"] = set()
                if item["dirs"]:
                    kept.append(item)
                else:
                    for spot in item["trash"]:
                        try:
                            os.unlink(spot)
                        except OSError:
                            pass
            self.names = kept
            if self.model == "linux":
                for parent in parents:
                    if any(item["inode"] == parent for item in self.names):
                        self.names_synced(inode=parent)

        # --- file data ----------------------------------------------------------------------
        def dirty_entry(self, inode, fd=None):
            entry = self.dirty.get(inode)
            if entry is None:
                own = os.open(f"/proc/self/fd/{fd}" if fd is not None else self.path(inode), os.O_RDWR)
                entry = {"fd": own, "size": os.fstat(own).st_size, "sectors": {}, "writes": 0}
                self.dirty[inode] = entry
            return entry

        def save_sectors(self, entry, start, end):
            """Keeps the synced content of the sectors in [start, end) not saved yet."""
            if end <= start:
                return
            for index in range(start // SECTOR, (end - 1) // SECTOR + 1):
                if index in entry["sectors"] or index * SECTOR >= entry["size"]:
                    continue
                keep = min(SECTOR, entry["size"] - index * SECTOR)
                entry["sectors"][index] = os.pread(entry["fd"], keep, index * SECTOR)

        def synced(self, inode):
            entry = self.dirty.pop(inode, None)
            if entry is not None:
                os.close(entry["fd"])
            if self.last_write is not None and self.last_write[0] == inode:
                self.last_write = None

        # --- the cut --------------------------------------------------------------------------
        def cut(self, tear=False, seed=None, reason="command"):
            if self.frozen:
                return self.cut_report
            self.frozen = True
            rng = random.Random(seed)
            report = {"reason": reason, "files_rolled_back": 0, "unsynced_writes_dropped": 0,
                      "sectors_restored": 0, "names_undone": 0, "undo_errors": [], "torn": None}
            for inode, entry in self.dirty.items():
                report["files_rolled_back"] += 1
                report["unsynced_writes_dropped"] += entry["writes"]
                for index, data in entry["sectors"].items():
                    os.pwrite(entry["fd"], data, index * SECTOR)
                    report["sectors_restored"] += 1
                os.ftruncate(entry["fd"], entry["size"])
            if tear and self.last_write is not None:
                inode, offset, data = self.last_write
                entry = self.dirty.get(inode)
                boundaries = [b for b in range((offset // SECTOR + 1) * SECTOR, offset + len(data), SECTOR)]
                if entry is not None and boundaries:
                    boundary = rng.choice(boundaries)
                    os.pwrite(entry["fd"], data[:boundary - offset], offset)
                    report["torn"] = {"path": sorted(self.paths.get(inode, {"?"}))[0], "offset": offset,
                                      "length": len(data), "kept": boundary - offset}
            for entry in self.dirty.values():
                os.close(entry["fd"])
            self.dirty.clear()
            for item in reversed(self.names):
                if not item["dirs"]:
                    continue
                report["names_undone"] += 1
                if len(report.setdefault("undone", [])) < 40:
                    report["undone"].append(item["what"])
                for step in item["undo"]:
                    try:
                        undo_step(step)
                    except OSError as e:
                        report["undo_errors"].append(f"{item['what']}: {step[0]}: {e}")
            self.names.clear()
            shutil.rmtree(self.trash, ignore_errors=True)
            self.cut_report = report
            return report

        # --- operations ---------------------------------------------------------------------
        def alive(self):
            if self.frozen:
                raise FUSEError(errno.EIO)

        async def lookup(self, parent_inode, name, ctx=None):
            self.alive()
            name = os.fsdecode(name)
            parent = self.path(parent_inode)
            if name == ".":
                path = parent
            elif name == "..":
                path = os.path.dirname(parent) if parent != self.backing else parent
            else:
                path = os.path.join(parent, name)
            entry = self.attrs(path)
            if name not in (".", ".."):
                self.remember(entry.st_ino, path)
            return entry

        async def forget(self, inode_list):
            for inode, count in inode_list:
                if inode == pyfuse3.ROOT_INODE:
                    continue
                left = self.lookups.get(inode, 0) - count
                if left > 0:
                    self.lookups[inode] = left
                else:
                    self.lookups.pop(inode, None)
                    if inode not in self.fd_inode.values() and inode not in self.dirty:
                        self.paths.pop(inode, None)

        async def getattr(self, inode, ctx=None):
            self.alive()
            if inode in self.fd_inode.values():
                for fd, ino in self.fd_inode.items():
                    if ino == inode:
                        return self.attrs(fd=fd) if inode != pyfuse3.ROOT_INODE else self.attrs(self.backing)
            return self.attrs(self.path(inode))

        async def readlink(self, inode, ctx):
            return os.fsencode(os.readlink(self.path(inode)))

        async def opendir(self, inode, ctx):
            self.alive()
            self.path(inode)
            return inode

        async def readdir(self, inode, off, token):
            self.alive()
            path = self.path(inode)
            entries = []
            for name in sorted(os.listdir(path)):
                try:
                    attrs = self.attrs(os.path.join(path, name))
                except FUSEError:
                    continue
                entries.append((attrs.st_ino, name, attrs))
            for index, (ino, name, attrs) in enumerate(entries):
                if index < off:
                    continue
                if not pyfuse3.readdir_reply(token, os.fsencode(name), attrs, index + 1):
                    break
                self.remember(ino, os.path.join(path, name))

        async def releasedir(self, fh):
            pass

        async def fsyncdir(self, fh, datasync):
            if self.frozen:
                raise FUSEError(errno.EIO)
            self.check("fsyncdir", self.path(fh))
            self.counts["dir_fsyncs"] += 1
            self.names_synced(directory=fh, inode=fh if self.model == "linux" else None)

        async def statfs(self, ctx):
            st = os.statvfs(self.backing)
            data = pyfuse3.StatvfsData()
            for name in ("f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree", "f_favail"):
                setattr(data, name, getattr(st, name))
            data.f_namemax = st.f_namemax
            return data

        def owned(self, path, ctx, is_link=False):
            try:
                os.chown(path, ctx.uid, ctx.gid, follow_symlinks=not is_link)
            except OSError:
                pass

        async def mknod(self, parent_inode, name, mode, rdev, ctx):
            parent = self.path(parent_inode)
            path = os.path.join(parent, os.fsdecode(name))
            self.check("create", path)
            try:
                os.mknod(path, mode=(mode & ~ctx.umask), device=rdev)
            except OSError as e:
                raise FUSEError(e.errno)
            self.owned(path, ctx)
            entry = self.attrs(path)
            self.log_name(f"mknod {path}", [parent_inode], [("unlink", path)], inode=entry.st_ino)
            self.remember(entry.st_ino, path)
            return entry

        async def mkdir(self, parent_inode, name, mode, ctx):
            parent = self.path(parent_inode)
            path = os.path.join(parent, os.fsdecode(name))
            self.check("mkdir", path)
            try:
                os.mkdir(path, mode=(mode & ~ctx.umask))
            except OSError as e:
                raise FUSEError(e.errno)
            self.owned(path, ctx)
            entry = self.attrs(path)
            self.log_name(f"mkdir {path}", [parent_inode], [("rmtree", path)], inode=entry.st_ino)
            self.remember(entry.st_ino, path)
            return entry

        async def rmdir(self, parent_inode, name, ctx):
            parent = self.path(parent_inode)
            path = os.path.join(parent, os.fsdecode(name))
            self.check("rmdir", path)
            try:
                st = os.lstat(path)
                os.rmdir(path)
            except OSError as e:
                raise FUSEError(e.errno)
            self.forget_path(st.st_ino, path)
            self.log_name(f"rmdir {path}", [parent_inode], [("mkdir", path, st.st_mode & 0o7777, st.st_uid, st.st_gid)])

        async def unlink(self, parent_inode, name, ctx):
            parent = self.path(parent_inode)
            path = os.path.join(parent, os.fsdecode(name))
            self.check("unlink", path)
            try:
                st = os.lstat(path)
                spot = self.to_trash(path)
                os.unlink(path)
            except OSError as e:
                raise FUSEError(e.errno)
            self.forget_path(st.st_ino, path)
            self.log_name(f"unlink {path}", [parent_inode], [("rename", spot, path)], trash=[spot])

        async def symlink(self, parent_inode, name, target, ctx):
            parent = self.path(parent_inode)
            path = os.path.join(parent, os.fsdecode(name))
            self.check("symlink", path)
            try:
                os.symlink(os.fsdecode(target), path)
            except OSError as e:
                raise FUSEError(e.errno)
            self.owned(path, ctx, is_link=True)
            entry = self.attrs(path)
            self.log_name(f"symlink {path}", [parent_inode], [("unlink", path)], inode=entry.st_ino)
            self.remember(entry.st_ino, path)
            return entry

        async def link(self, inode, new_parent_inode, new_name, ctx):
            source = self.path(inode)
            path = os.path.join(self.path(new_parent_inode), os.fsdecode(new_name))
            self.check("link", path)
            try:
                os.link(source, path, follow_symlinks=False)
            except OSError as e:
                raise FUSEError(e.errno)
            self.log_name(f"link {path}", [new_parent_inode], [("unlink", path)], inode=inode)
            entry = self.attrs(path)
            self.remember(inode, path)
            return entry

        async def rename(self, parent_old, name_old, parent_new, name_new, flags, ctx):
            if flags & pyfuse3.RENAME_EXCHANGE:
                raise FUSEError(errno.EINVAL)
            old = os.path.join(self.path(parent_old), os.fsdecode(name_old))
            new = os.path.join(self.path(parent_new), os.fsdecode(name_new))
            self.check("rename", new)
            undo, trash = [("rename", new, old)], []
            try:
                st = os.lstat(old)
                try:
                    target = os.lstat(new)
                except FileNotFoundError:
                    target = None
                if target is not None and flags & pyfuse3.RENAME_NOREPLACE:
                    raise FUSEError(errno.EEXIST)
                if target is not None and target.st_ino != st.st_ino:
                    if stat.S_ISDIR(target.st_mode):
                        undo.append(("mkdir", new, target.st_mode & 0o7777, target.st_uid, target.st_gid))
                    else:
                        spot = self.to_trash(new)
                        trash.append(spot)
                        undo.append(("rename", spot, new))
                    self.forget_path(target.st_ino, new)
                os.rename(old, new)
            except OSError as e:
                raise FUSEError(e.errno)
            self.forget_path(st.st_ino, old)
            self.paths.setdefault(st.st_ino, set()).add(new)
            if stat.S_ISDIR(st.st_mode):
                # Paths below a renamed directory: rewrite the prefix.
                for ino, paths in self.paths.items():
                    for p in list(paths):
                        if p.startswith(old + "/"):
                            paths.discard(p)
                            paths.add(new + p[len(old):])
            self.log_name(f"rename {old} -> {new}", {parent_old, parent_new}, undo, trash=trash, inode=st.st_ino)

        async def setattr(self, inode, attr, fields, fh, ctx):
            path = self.path(inode) if fh is None else None
            try:
                if fields.update_size:
                    self.check("truncate", path or self.path_or_none(inode))
                    entry = self.dirty_entry(inode, fh)
                    current = os.fstat(entry["fd"]).st_size
                    self.save_sectors(entry, min(attr.st_size, current), min(current, entry["size"]))
                    entry["writes"] += 1
                    os.ftruncate(entry["fd"], attr.st_size)
                target = fh if fh is not None else path
                if fields.update_mode:
                    self.check("chmod", path or self.path_or_none(inode))
                    os.chmod(target, stat.S_IMODE(attr.st_mode)) if fh is None else os.fchmod(fh, stat.S_IMODE(attr.st_mode))
                if fields.update_uid or fields.update_gid:
                    uid = attr.st_uid if fields.update_uid else -1
                    gid = attr.st_gid if fields.update_gid else -1
                    os.chown(target, uid, gid, follow_symlinks=False) if fh is None else os.fchown(fh, uid, gid)
                if fields.update_atime or fields.update_mtime:
                    st = os.lstat(path) if fh is None else os.fstat(fh)
                    times = (attr.st_atime_ns if fields.update_atime else st.st_atime_ns,
                             attr.st_mtime_ns if fields.update_mtime else st.st_mtime_ns)
                    if fh is None:
                        os.utime(path, ns=times, follow_symlinks=False)
                    else:
                        os.utime(fh, ns=times)
            except OSError as e:
                raise FUSEError(e.errno)
            return self.attrs(path) if fh is None else self.attrs(fd=fh)

        async def open(self, inode, flags, ctx):
            self.alive()
            path = self.path(inode)
            try:
                fd = os.open(path, flags & ~(os.O_CREAT | os.O_TRUNC))
            except OSError as e:
                raise FUSEError(e.errno)
            if flags & os.O_TRUNC:
                self.check("truncate", path)
                entry = self.dirty_entry(inode, fd)
                self.save_sectors(entry, 0, min(os.fstat(fd).st_size, entry["size"]))
                entry["writes"] += 1
                os.ftruncate(fd, 0)
            self.fd_inode[fd] = inode
            return pyfuse3.FileInfo(fh=fd, keep_cache=False)

        async def create(self, parent_inode, name, mode, flags, ctx):
            parent = self.path(parent_inode)
            path = os.path.join(parent, os.fsdecode(name))
            self.check("create", path)
            try:
                fd = os.open(path, (flags | os.O_CREAT | os.O_EXCL) & ~os.O_TRUNC, mode & ~ctx.umask)
            except FileExistsError:
                raise FUSEError(errno.EEXIST)
            except OSError as e:
                raise FUSEError(e.errno)
            self.owned(path, ctx)
            entry = self.attrs(fd=fd)
            self.remember(entry.st_ino, path)
            self.fd_inode[fd] = entry.st_ino
            self.log_name(f"create {path}", [parent_inode], [("unlink", path)], inode=entry.st_ino)
            # A new file's synced size is 0: its data is on disk only once fsync'd.
            self.dirty_entry(entry.st_ino, fd)
            return pyfuse3.FileInfo(fh=fd, keep_cache=False), entry

        async def read(self, fh, offset, length):
            if self.frozen:
                raise FUSEError(errno.EIO)
            return os.pread(fh, length, offset)

        async def write(self, fh, offset, buf):
            inode = self.fd_inode[fh]
            self.check("write", self.path_or_none(inode))
            entry = self.dirty_entry(inode, fh)
            self.save_sectors(entry, offset, offset + len(buf))
            entry["writes"] += 1
            self.counts["writes"] += 1
            self.last_write = (inode, offset, bytes(buf))
            return os.pwrite(fh, buf, offset)

        async def flush(self, fh):
            pass

        async def release(self, fh):
            self.fd_inode.pop(fh, None)
            os.close(fh)

        async def fsync(self, fh, datasync):
            inode = self.fd_inode.get(fh)
            self.check("fsync", self.path_or_none(inode))
            self.counts["fsyncs"] += 1
            self.synced(inode)
            if self.model == "linux":
                self.names_synced(inode=inode)

        def status(self):
            return {"model": self.model, "frozen": self.frozen, "cut": self.cut_report, "unsynced_files": len(self.dirty),
                    "unsynced_names": sum(1 for n in self.names if n["dirs"]), "armed": self.trigger is not None,
                    **self.counts}

    return PowerFS()


def undo_step(step):
    kind = step[0]
    if kind == "unlink":
        try:
            os.unlink(step[1])
        except FileNotFoundError:
            pass
    elif kind == "rmtree":
        shutil.rmtree(step[1], ignore_errors=True)
    elif kind == "rename":
        os.rename(step[1], step[2])
    elif kind == "mkdir":
        _, path, mode, uid, gid = step
        if not os.path.isdir(path):
            os.mkdir(path, mode)
            os.chown(path, uid, gid)
    else:
        raise OSError(errno.EINVAL, f"unknown undo step {kind}")


# --- the daemon ---------------------------------------------------------------------------------

def serve(backing, mount, model="posix"):
    import pyfuse3
    import trio

    backing = os.path.abspath(backing)
    mount = os.path.abspath(mount)
    state = state_dir(mount)
    os.makedirs(state, exist_ok=True)
    control = os.path.join(state, "control.sock")
    ops = make_operations(pyfuse3, backing, model)

    async def handle(conn):
        with conn:
            data = b""
            while not data.endswith(b"\n"):
                chunk = await conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            try:
                command = json.loads(data)
                kind = command["command"]
                if kind == "cut":
                    answer = ops.cut(command.get("tear", False), command.get("seed"))
                elif kind == "arm":
                    ops.trigger = Trigger(command["trigger"])
                    answer = {"armed": True}
                elif kind == "disarm":
                    ops.trigger = None
                    answer = {"armed": False}
                elif kind == "sync":
                    # sync(1): everything so far is on disk.
                    for inode in list(ops.dirty):
                        ops.synced(inode)
                    ops.names = []
                    shutil.rmtree(ops.trash, ignore_errors=True)
                    os.makedirs(ops.trash, exist_ok=True)
                    answer = {"synced": True}
                elif kind == "status":
                    answer = ops.status()
                else:
                    answer = {"error": f"unknown command {kind}"}
            except Exception as e:  # answer the client rather than end the filesystem
                answer = {"error": repr(e)}
            await conn.send((json.dumps(answer) + "\n").encode())

    async def control_loop():
        listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            os.unlink(control)
        except FileNotFoundError:
            pass
        await listener.bind(control)
        listener.listen(8)
        while True:
            conn, _ = await listener.accept()
            await handle(conn)

    async def main():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(control_loop)
            await pyfuse3.main()
            nursery.cancel_scope.cancel()

    options = set(pyfuse3.default_options)
    options.update({"fsname=powerfs", "allow_other"})
    pyfuse3.init(ops, mount, options)
    try:
        trio.run(main)
    finally:
        pyfuse3.close(unmount=False)
        try:
            os.unlink(control)
        except FileNotFoundError:
            pass


# --- the client side ----------------------------------------------------------------------------

def send(mount, command, timeout=60):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(os.path.join(state_dir(mount), "control.sock"))
        s.sendall((json.dumps(command) + "\n").encode())
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return json.loads(data)


def mounted(mount):
    mount = os.path.abspath(mount)
    with open("/proc/self/mounts") as f:
        return any(line.split()[1] == mount for line in f)


def start(backing, mount, timeout=30, model="posix"):
    mount = os.path.abspath(mount)
    state = state_dir(mount)
    os.makedirs(state, exist_ok=True)
    os.makedirs(mount, exist_ok=True)
    log = open(os.path.join(state, "log"), "ab")
    process = subprocess.Popen(["/usr/bin/python3", os.path.abspath(__file__), "serve", backing, mount, model],
                               stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    log.close()
    with open(os.path.join(state, "pid"), "w") as f:
        f.write(str(process.pid))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"powerfs exited with {process.returncode}; see {state}/log")
        if mounted(mount) and os.path.exists(os.path.join(state, "control.sock")):
            try:
                send(mount, {"command": "status"}, timeout=5)
                return process.pid
            except OSError:
                pass
        time.sleep(0.05)
    raise RuntimeError(f"powerfs did not mount {mount} in {timeout} s; see {state}/log")


def stop(mount, timeout=30):
    """Unmounts (lazily if something still holds it) and waits for the daemon to end."""
    mount = os.path.abspath(mount)
    state = state_dir(mount)
    if mounted(mount):
        done = subprocess.run(["fusermount3", "-u", mount], capture_output=True)
        if done.returncode != 0:
            subprocess.run(["fusermount3", "-u", "-z", mount], capture_output=True)
    try:
        with open(os.path.join(state, "pid")) as f:
            pid = int(f.read())
    except (OSError, ValueError):
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            finished, _ = os.waitpid(pid, os.WNOHANG) if is_child(pid) else (0, 0)
            if finished == pid:
                break
        except (ProcessLookupError, ChildProcessError):
            break
        time.sleep(0.05)
    else:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
    try:
        os.unlink(os.path.join(state, "pid"))
    except FileNotFoundError:
        pass


def is_child(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1]) == os.getpid()
    except (OSError, ValueError, IndexError):
        return False


def backing_of(mount):
    with open(os.path.join(state_dir(mount), "backing")) as f:
        return f.read()


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        sys.exit(2)
    command = args[0]
    if command == "serve":
        serve(args[1], args[2], args[3] if len(args) > 3 else "posix")
    elif command == "start":
        backing, mount = os.path.abspath(args[1]), os.path.abspath(args[2])
        os.makedirs(state_dir(mount), exist_ok=True)
        with open(os.path.join(state_dir(mount), "backing"), "w") as f:
            f.write(backing)
        model = args[args.index("--names") + 1] if "--names" in args else "posix"
        with open(os.path.join(state_dir(mount), "model"), "w") as f:
            f.write(model)
        print(start(backing, mount, model=model))
    elif command == "cut":
        tear = "--tear" in args
        seed = int(args[args.index("--seed") + 1]) if "--seed" in args else None
        print(json.dumps(send(args[1], {"command": "cut", "tear": tear, "seed": seed})))
    elif command == "arm":
        print(json.dumps(send(args[1], {"command": "arm", "trigger": json.loads(args[2])})))
    elif command in ("status", "sync"):
        print(json.dumps(send(args[1], {"command": command})))
    elif command == "remount":
        stop(args[1])
        with open(os.path.join(state_dir(args[1]), "model")) as f:
            model = f.read()
        print(start(backing_of(args[1]), args[1], model=model))
    elif command == "stop":
        stop(args[1])
        shutil.rmtree(state_dir(args[1]), ignore_errors=True)
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
