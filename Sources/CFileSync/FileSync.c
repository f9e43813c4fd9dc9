#define _GNU_SOURCE
#include <fcntl.h>

#include "CFileSync.h"

int listsync_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}
