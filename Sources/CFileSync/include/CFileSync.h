#ifndef LISTSYNC_FILE_SYNC_H
#define LISTSYNC_FILE_SYNC_H

/// Asks the kernel to start writing the file's dirty pages to the disk, without waiting for them
/// and without flushing the disk's cache: Linux's `sync_file_range(fd, 0, 0,
/// SYNC_FILE_RANGE_WRITE)`, which Swift's Glibc module hides (it is only declared with
/// `_GNU_SOURCE`). A later `fdatasync` then has less left to write. Returns 0, or -1 with `errno`.
int listsync_start_writeback(int fd);

#endif
