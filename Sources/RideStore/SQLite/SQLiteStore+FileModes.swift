#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The database holds ride keys and personal data in plain text, so its files are the
/// owner's alone whatever the umask (outside systemd, whose unit sets UMask=0077, a shell's
/// 022 made them 0644). SQLite gives the -wal and -shm files the main file's mode, so creating
/// the main file 0600 before SQLite opens it covers all three.
extension SQLiteStore {
    static let fileMode: mode_t = 0o600

    /// Creates the database file with mode 0600 if it does not exist yet; leaves an existing
    /// file alone (`filesReadableByOthers` reports it).
    static func createPrivately(_ path: String) throws {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, fileMode)
        if fd >= 0 {
            // open() applied the umask; fchmod sets exactly 0600 (the umask can only narrow it,
            // but a 0 umask must not widen anything either).
            fchmod(fd, fileMode)
            // The new name must survive power loss before anything is acknowledged in the file.
            fsync(fd)
            closeDescriptor(fd)
            try syncDirectory(containing: path)
            return
        }
        guard errno == EEXIST else {
            throw StoreError.unavailable("cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// fsyncs the directory holding `path`, so a file created or renamed there keeps its name
    /// through power loss (fsync of the file alone does not persist its directory entry).
    static func syncDirectory(containing path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { closeDescriptor(fd) }
            throw StoreError.unavailable("cannot sync the directory of \(path): \(reason)")
        }
        closeDescriptor(fd)
    }

    /// fsyncs one file's data (a finished backup before it is renamed into place).
    static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { closeDescriptor(fd) }
            throw StoreError.unavailable("cannot sync \(path): \(reason)")
        }
        closeDescriptor(fd)
    }

    /// The database file and its -wal and -shm companions that group or others may read or
    /// write; `serve` warns about each.
    public static func filesReadableByOthers(path: String) -> [(path: String, mode: String)] {
        [path, path + "-wal", path + "-shm"].compactMap { file in
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { return nil }
            return (file, String(info.st_mode & 0o777, radix: 8))
        }
    }
}

/// Outside the extension: inside it, `close` would name the store's own `close()`.
private func closeDescriptor(_ fd: Int32) {
    close(fd)
}
