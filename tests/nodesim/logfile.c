/* CRI container logs: see logfile.h.
 *
 * The writer stamps each line when nodesim reads it from the process's pipe, which is what
 * a container runtime does too. Records are written with one write(2) each, but a reader
 * may still see a record half-written, so readers only consume up to the last newline and
 * keep the rest for the next round. */
#include "tests/nodesim/logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "tests/nodesim/util.h"

#define LOG_DEFAULT_MAX (UINT64_C(50) * 1024 * 1024)
#define READ_CHUNK (64 * 1024)

struct LogFile {
        unsigned n_ref;
        char *path;
        int fd;                 /* -1 once closed */
        uint64_t written, max;
        bool closed, truncated;
        Buf partial;
};

static int new_file(const char *path, LogFile **ret) {
        LogFile *f = calloc(1, sizeof(*f));
        if (!f)
                return -ENOMEM;
        f->n_ref = 1;
        f->fd = -1;
        buf_init(&f->partial, LOG_LINE_MAX + 1);
        if (!(f->path = strdup(path))) {
                free(f);
                return -ENOMEM;
        }
        *ret = f;
        return 0;
}

int log_file_open(const char *path, uint64_t max_bytes, LogFile **ret) {
        LogFile *f;
        int r = new_file(path, &f);
        if (r < 0)
                return r;
        f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0640);
        if (f->fd < 0) {
                r = negative_errno();
                log_file_unref(f);
                return r;
        }
        f->max = max_bytes ? max_bytes : LOG_DEFAULT_MAX;
        *ret = f;
        return 0;
}

int log_file_open_closed(const char *path, LogFile **ret) {
        if (access(path, R_OK) < 0)
                return negative_errno();
        LogFile *f;
        int r = new_file(path, &f);
        if (r < 0)
                return r;
        f->closed = true;
        *ret = f;
        return 0;
}

LogFile *log_file_ref(LogFile *f) {
        if (f)
                f->n_ref++;
        return f;
}

LogFile *log_file_unref(LogFile *f) {
        if (!f || --f->n_ref > 0)
                return NULL;
        if (f->fd >= 0)
                close(f->fd);
        buf_free(&f->partial);
        free(f->path);
        free(f);
        return NULL;
}

const char *log_file_path(const LogFile *f) {
        return f->path;
}

bool log_file_closed(const LogFile *f) {
        return f->closed;
}

void log_format_time(uint64_t realtime_usec, char *buf, size_t size) {
        /* RFC3339Nano from the microsecond form: the three digits the clock lacks are 0. */
        char micro[RFC3339_MAX];
        rfc3339_format(realtime_usec, true, micro, sizeof(micro));
        size_t n = strlen(micro);
        snprintf(buf, size, "%.*s000Z", (int) (n - 1), micro);
}

static int write_record(LogFile *f, const char *tag, const char *text, size_t len, uint64_t now) {
        if (f->fd < 0 || f->truncated)
                return 0;
        char ts[48];
        log_format_time(now, ts, sizeof(ts));
        _cleanup_buf_ Buf rec = {};
        buf_init(&rec, LOG_LINE_MAX + 128);
        if (f->written + len + 64 > f->max) {
                /* The last record says why the log stops, instead of silently ending. */
                f->truncated = true;
                text = "nodesim: log size limit reached, further output dropped";
                len = strlen(text);
                tag = "F";
        }
        int r = buf_printf(&rec, "%s stdout %s ", ts, tag);
        if (r >= 0)
                r = buf_append(&rec, text, len);
        if (r >= 0)
                r = buf_putc(&rec, '\n');
        if (r < 0)
                return r;
        ssize_t n = write(f->fd, rec.data, rec.len);
        if (n < 0)
                return negative_errno();
        f->written += (uint64_t) n;
        return 0;
}

int log_file_feed(LogFile *f, const char *data, size_t len, uint64_t now) {
        int r = 0;
        while (len > 0) {
                const char *nl = memchr(data, '\n', len);
                size_t take = nl ? (size_t) (nl - data) : len;
                size_t room = LOG_LINE_MAX - f->partial.len;
                if (take > room)
                        take = room;
                if ((r = buf_append(&f->partial, data, take)) < 0)
                        return r;
                data += take;
                len -= take;
                if (nl && data == nl) {
                        r = write_record(f, "F", buf_str(&f->partial), f->partial.len, now);
                        buf_reset(&f->partial);
                        data++;
                        len--;
                } else if (f->partial.len >= LOG_LINE_MAX) {
                        r = write_record(f, "P", buf_str(&f->partial), f->partial.len, now);
                        buf_reset(&f->partial);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

void log_file_close(LogFile *f, uint64_t now) {
        if (f->partial.len > 0)
                (void) write_record(f, "P", buf_str(&f->partial), f->partial.len, now);
        buf_reset(&f->partial);
        if (f->fd >= 0)
                close(f->fd);
        f->fd = -1;
        f->closed = true;
}

static int parse_bool(const char *s, bool *ret) {
        if (!s)
                return 0;
        if (strcmp(s, "true") == 0 || strcmp(s, "1") == 0)
                *ret = true;
        else if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0 || !*s)
                *ret = false;
        else
                return -EINVAL;
        return 0;
}

int log_query_parse(const char *tail_lines, const char *limit_bytes, const char *timestamps, const char *follow,
                    const char *since_seconds, const char *since_time, uint64_t now, LogQuery *ret) {
        LogQuery q = { .tail_lines = -1, .limit_bytes = -1 };
        int64_t v;
        if (tail_lines && (ns_parse_int64(tail_lines, 0, INT64_MAX, &q.tail_lines) < 0))
                return -EINVAL;
        if (limit_bytes && (ns_parse_int64(limit_bytes, 1, INT64_MAX, &q.limit_bytes) < 0))
                return -EINVAL;
        if (parse_bool(timestamps, &q.timestamps) < 0 || parse_bool(follow, &q.follow) < 0)
                return -EINVAL;
        if (since_seconds) {
                if (ns_parse_int64(since_seconds, 1, INT64_MAX / (int64_t) USEC_PER_SEC, &v) < 0)
                        return -EINVAL;
                q.since = (uint64_t) v * USEC_PER_SEC < now ? now - (uint64_t) v * USEC_PER_SEC : 1;
        } else if (since_time && rfc3339_parse(since_time, &q.since) < 0)
                return -EINVAL;
        *ret = q;
        return 0;
}

struct LogReader {
        LogFile *file;
        int fd;
        LogQuery q;
        uint64_t emitted;
        Buf in;                 /* bytes read but not yet a complete record */
        Buf out;                /* formatted output not yet handed out */
        size_t out_pos;
        bool done;
};

LogReader *log_reader_free(LogReader *r) {
        if (!r)
                return NULL;
        if (r->fd >= 0)
                close(r->fd);
        log_file_unref(r->file);
        buf_free(&r->in);
        buf_free(&r->out);
        free(r);
        return NULL;
}

/* The offset where the last n records start: scans backwards counting newlines. */
static int tail_offset(int fd, int64_t n, off_t *ret) {
        off_t end = lseek(fd, 0, SEEK_END);
        if (end < 0)
                return negative_errno();
        char buf[READ_CHUNK];
        off_t pos = end;
        int64_t seen = 0;
        bool first = true;
        while (pos > 0) {
                size_t len = (size_t) MIN((off_t) sizeof(buf), pos);
                pos -= (off_t) len;
                ssize_t k = pread(fd, buf, len, pos);
                if (k < 0)
                        return negative_errno();
                for (ssize_t i = k - 1; i >= 0; i--) {
                        if (buf[i] != '\n')
                                continue;
                        /* The newline ending the file closes the last record, it does not
                         * start one. */
                        if (first && pos + i == end - 1) {
                                first = false;
                                continue;
                        }
                        first = false;
                        if (++seen == n) {
                                *ret = pos + i + 1;
                                return 0;
                        }
                }
                first = false;
        }
        *ret = 0;
        return 0;
}

int log_reader_new(LogFile *f, const LogQuery *q, LogReader **ret) {
        LogReader *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->q = *q;
        r->file = log_file_ref(f);
        buf_init(&r->in, 4 * LOG_LINE_MAX);
        buf_init(&r->out, 4 * LOG_LINE_MAX);
        r->fd = open(f->path, O_RDONLY | O_CLOEXEC);
        if (r->fd < 0) {
                int e = negative_errno();
                log_reader_free(r);
                return e;
        }
        off_t start = 0;
        if (q->tail_lines >= 0) {
                int e = q->tail_lines == 0 ? (start = lseek(r->fd, 0, SEEK_END)) < 0 ? negative_errno() : 0
                                           : tail_offset(r->fd, q->tail_lines, &start);
                if (e < 0) {
                        log_reader_free(r);
                        return e;
                }
        }
        if (lseek(r->fd, start, SEEK_SET) < 0) {
                int e = negative_errno();
                log_reader_free(r);
                return e;
        }
        *ret = r;
        return 0;
}

/* Formats one record "TS STREAM TAG TEXT" into out; malformed records are passed through
 * as they are rather than dropped. */
static int format_record(LogReader *r, const char *rec, size_t len) {
        const char *sp1 = memchr(rec, ' ', len);
        const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', len - (size_t) (sp1 + 1 - rec)) : NULL;
        const char *sp3 = sp2 ? memchr(sp2 + 1, ' ', len - (size_t) (sp2 + 1 - rec)) : NULL;
        if (!sp3)
                sp3 = sp2 && sp2 + 2 == rec + len ? rec + len : NULL;
        if (!sp1 || !sp2 || !sp3) {
                int e = buf_append(&r->out, rec, len);
                return e < 0 ? e : buf_putc(&r->out, '\n');
        }
        if (r->q.since) {
                char ts[64];
                size_t tl = (size_t) (sp1 - rec);
                uint64_t t;
                if (tl < sizeof(ts)) {
                        memcpy(ts, rec, tl);
                        ts[tl] = '\0';
                        if (rfc3339_parse(ts, &t) == 0 && t < r->q.since)
                                return 0;
                }
        }
        bool full = sp2[1] == 'F';
        const char *text = sp3 < rec + len ? sp3 + 1 : rec + len;
        int e = 0;
        if (r->q.timestamps)
                e = buf_append(&r->out, rec, (size_t) (sp1 - rec) + 1);
        if (e >= 0)
                e = buf_append(&r->out, text, (size_t) (rec + len - text));
        if (e >= 0 && full)
                e = buf_putc(&r->out, '\n');
        return e;
}

/* Reads more of the file and formats the complete records. Returns bytes read (0 at EOF). */
static ssize_t fill(LogReader *r) {
        char chunk[READ_CHUNK];
        size_t room = r->in.max - r->in.len;
        ssize_t n = read(r->fd, chunk, MIN(sizeof(chunk), room));
        if (n < 0)
                return negative_errno();
        if (n == 0)
                return 0;
        int e = buf_append(&r->in, chunk, (size_t) n);
        if (e < 0)
                return e;
        size_t start = 0;
        for (;;) {
                char *nl = memchr(r->in.data + start, '\n', r->in.len - start);
                if (!nl)
                        break;
                size_t len = (size_t) (nl - (r->in.data + start));
                if ((e = format_record(r, r->in.data + start, len)) < 0)
                        return e;
                start += len + 1;
        }
        if (start == 0 && r->in.len == r->in.max) {
                /* A "record" longer than any the writer produces: pass it on as it is. */
                if ((e = buf_append(&r->out, r->in.data, r->in.len)) < 0)
                        return e;
                start = r->in.len;
        }
        memmove(r->in.data, r->in.data + start, r->in.len - start);
        r->in.len -= start;
        r->in.data[r->in.len] = '\0';
        return n;
}

ssize_t log_reader_read(LogReader *r, char *buf, size_t max) {
        for (;;) {
                if (r->done)
                        return LOG_READ_END;
                if (r->out_pos < r->out.len) {
                        size_t n = MIN(max, r->out.len - r->out_pos);
                        if (r->q.limit_bytes >= 0) {
                                uint64_t left = (uint64_t) r->q.limit_bytes - r->emitted;
                                if (n > left)
                                        n = (size_t) left;
                        }
                        memcpy(buf, r->out.data + r->out_pos, n);
                        r->out_pos += n;
                        r->emitted += n;
                        if (r->q.limit_bytes >= 0 && r->emitted >= (uint64_t) r->q.limit_bytes)
                                r->done = true;
                        if (r->out_pos == r->out.len) {
                                buf_reset(&r->out);
                                r->out_pos = 0;
                        }
                        if (n > 0)
                                return (ssize_t) n;
                        continue;
                }
                /* Checked before reading so that output written just before the close is
                 * still read in full afterwards. */
                bool closed = log_file_closed(r->file);
                ssize_t n = fill(r);
                if (n < 0)
                        return n;
                if (n > 0)
                        continue;
                if (r->out.len > 0)
                        continue;
                if (!r->q.follow || closed)
                        return LOG_READ_END;
                return 0;
        }
}
