#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "CFileSync.h"

int listsync_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

long listsync_copy_file_range(int in_fd, long long *in_offset, int out_fd, unsigned long count) {
    off64_t offset = *in_offset;
    ssize_t copied = copy_file_range(in_fd, &offset, out_fd, NULL, count, 0);
    *in_offset = offset;
    return copied;
}
