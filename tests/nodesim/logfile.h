#pragma once
/* Container logs in the CRI format the kubelet reads ("<RFC3339Nano> stdout F <text>"; tag
 * P for a piece of a longer line), one file per container instance, and the reader behind
 * the kubelet's /containerLogs endpoint: tailLines, limitBytes, timestamps, sinceTime and
 * follow. A LogFile is shared between the writer (the process runner) and any followers;
 * followers stop at the end of the file once the writer closed it (the instance exited). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A CRI record holds at most this much text; longer lines are split into P records. */
#define LOG_LINE_MAX (16 * 1024)

/* The CRI log's timestamp: RFC 3339 in UTC with nine fractional digits
 * ("2026-11-18T11:06:40.123456000Z"); size >= RFC3339_MAX + 3. */
void log_format_time(uint64_t realtime_usec, char *buf, size_t size);

typedef struct LogFile LogFile;

/* Creates (truncating) the log file at path; at most max_bytes are written, after which
 * one "log truncated" record is written and further output dropped (0 = 50 MiB). Returns
 * 0 and a new LogFile (one reference, writable), -errno. */
int log_file_open(const char *path, uint64_t max_bytes, LogFile **ret);
/* A read-only LogFile for an existing file of a finished instance (already closed). */
int log_file_open_closed(const char *path, LogFile **ret);
LogFile *log_file_ref(LogFile *f);
LogFile *log_file_unref(LogFile *f);
const char *log_file_path(const LogFile *f);
bool log_file_closed(const LogFile *f);

/* Feeds raw process output: complete lines become F records stamped with now, a pending
 * partial line is kept until its newline (or until LOG_LINE_MAX, then a P record).
 * Returns 0 or -errno from write(2) (the data is then dropped). */
int log_file_feed(LogFile *f, const char *data, size_t len, uint64_t now);
/* Writes any pending partial line (as P) and marks the file closed: followers finish. */
void log_file_close(LogFile *f, uint64_t now);

typedef struct LogQuery {
        int64_t tail_lines;     /* < 0: all */
        int64_t limit_bytes;    /* < 0: none */
        uint64_t since;         /* realtime usec; 0: none */
        bool timestamps;
        bool follow;
} LogQuery;

/* Parses the endpoint's query values (each may be NULL). Returns 0 or -EINVAL. */
int log_query_parse(const char *tail_lines, const char *limit_bytes, const char *timestamps,
                    const char *follow, const char *since_seconds, const char *since_time, uint64_t now,
                    LogQuery *ret);

typedef struct LogReader LogReader;

/* Opens a reader over f (a reference is taken). Returns 0, -errno. */
int log_reader_new(LogFile *f, const LogQuery *q, LogReader **ret);
/* Fills buf with up to max bytes of output. Returns the count, 0 when following and
 * nothing is available yet, -1 (LOG_READ_END) at the end, or -errno. */
#define LOG_READ_END ((ssize_t) -1)
ssize_t log_reader_read(LogReader *r, char *buf, size_t max);
LogReader *log_reader_free(LogReader *r);
