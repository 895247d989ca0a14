#pragma once
/* What log.c (the line) and log-file.c (klog's log files) share. */
#include <stddef.h>

#include "kube/log.h"

/* Writes one finished line to the files c asks for (creating and rotating them); a file
 * that fails ends the program as klog does (klog_exit_hook in tests). */
void klog_files_write(const KlogConfig *c, KlogSeverity sev, const char *data, size_t len);
/* Closes every file (a new configuration starts new ones). */
void klog_files_close(void);
