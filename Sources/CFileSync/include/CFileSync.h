#ifndef LISTSYNC_FILE_SYNC_H
#define LISTSYNC_FILE_SYNC_H

/// Asks the kernel to start writing the file's dirty pages to the disk, without waiting for them
/// and without flushing the disk's cache: Linux's `sync_file_range(fd, 0, 0,
/// SYNC_FILE_RANGE_WRITE)`, which Swift's Glibc module hides (it is only declared with
/// `_GNU_SOURCE`). A later `fdatasync` then has less left to write. Returns 0, or -1 with `errno`.
int listsync_start_writeback(int fd);

/// Copies up to `count` bytes from `in_fd` at `*in_offset` (advanced) to `out_fd` at its file
/// offset, inside the kernel: Linux's `copy_file_range`, hidden like `sync_file_range`. Returns
/// the bytes copied, or -1 with `errno` (`EXDEV`, `ENOSYS`, `EINVAL`… where it cannot copy).
long listsync_copy_file_range(int in_fd, long long *in_offset, int out_fd, unsigned long count);

/// Makes a SIGBUS write, before it ends the process as it would have, one line to standard
/// error that says what it was: for an address past the end of a mapped file (`BUS_ADRERR`),
/// that another process cut short a file the daemon had mapped — its state files, which it maps
/// to serve saved versions (issue 19), and which nothing else may write or truncate. Without it
/// the daemon vanishes with no word in its log. Returns 0, or -1 with `errno`.
int listsync_report_bus_errors(void);

#endif
