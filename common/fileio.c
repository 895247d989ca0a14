/* Whole-file reads: see fileio.h. */
#include "common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/macro.h"

int read_full_file(const char *path, size_t max, char **ret, size_t *ret_len) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        if ((size_t) st.st_size > max)
                return -E2BIG;
        _cleanup_buf_ Buf b;
        buf_init(&b, max);
        char chunk[16384];
        for (;;) {
                ssize_t n = read(fd, chunk, sizeof chunk);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                int r = buf_append(&b, chunk, (size_t) n);
                if (r < 0)
                        return r;
        }
        if (ret_len)
                *ret_len = b.len;
        *ret = buf_steal(&b);
        explicit_bzero(chunk, sizeof chunk);
        return *ret ? 0 : -ENOMEM;
}

