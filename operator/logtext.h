#pragma once
/* Text from users (policy names, predicate names, API messages that quote them) goes into
 * the operator's log only through log_text(): control characters are escaped (\n, \r, \t,
 * \xNN; a backslash becomes \\), so no input can end a klog line and forge the next one. */

#include <stddef.h>

#define LOG_TEXT_MAX 2048

/* Writes the escaped form of s (NULL: "") into buf (size >= 8), cut with "..." when it
 * does not fit; returns buf. */
char *log_text(const char *s, char *buf, size_t size);

/* The escaped form in a buffer that lives until the end of the enclosing full expression
 * (a klog call's arguments). */
#define LOG_TEXT(s) log_text((s), (char[LOG_TEXT_MAX]) {}, LOG_TEXT_MAX)
