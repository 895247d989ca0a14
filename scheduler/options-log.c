/* The logging flags of kube-scheduler v1.20 (klog v2.4.0's and component-base/logs'), into
 * SchedOptions.log (a KlogConfig, applied by the daemon once the options are loaded). The
 * errors are pflag's and klog's words. On 1.32's line (a v1 or v1beta3 --config) the klog
 * flags 1.26 removed and --experimental-logging-sanitization are unknown flags, as there. */
#include "scheduler/options-log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/time-util.h"
#include "kube/log-format.h"
#include "scheduler/options-internal.h"

const struct option sched_log_longopts[] = {
        { "logtostderr", optional_argument, NULL, OPT_LOG_TOSTDERR },
        { "alsologtostderr", optional_argument, NULL, OPT_LOG_ALSO },
        { "log-dir", required_argument, NULL, OPT_LOG_DIR },
        { "log-file", required_argument, NULL, OPT_LOG_FILE },
        { "log-file-max-size", required_argument, NULL, OPT_LOG_MAX_SIZE },
        { "one-output", optional_argument, NULL, OPT_LOG_ONE_OUTPUT },
        { "skip-headers", optional_argument, NULL, OPT_LOG_SKIP_HEADERS },
        { "skip-log-headers", optional_argument, NULL, OPT_LOG_SKIP_LOG_HEADERS },
        { "stderrthreshold", required_argument, NULL, OPT_LOG_THRESHOLD },
        { "add-dir-header", optional_argument, NULL, OPT_LOG_ADD_DIR },
        { "log-backtrace-at", required_argument, NULL, OPT_LOG_BACKTRACE },
        { "experimental-logging-sanitization", optional_argument, NULL, OPT_LOG_SANITIZATION },
        { "log-flush-frequency", required_argument, NULL, OPT_LOG_FLUSH_FREQ },
        { "logging-format", required_argument, NULL, OPT_LOG_FORMAT_NAME },
        { "hard-pod-affinity-symmetric-weight", required_argument, NULL, OPT_HARD_POD_WEIGHT },
};
const size_t sched_n_log_longopts = ELEMENTSOF(sched_log_longopts);

/* Go's strconv.ParseBool, which pflag's bool flags use; a bare flag is true */
static int parse_go_bool(const char *s, bool *ret) {
        static const char *const yes[] = { "1", "t", "T", "TRUE", "true", "True" };
        static const char *const no[] = { "0", "f", "F", "FALSE", "false", "False" };
        if (!s) {
                *ret = true;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcmp(s, yes[i]) == 0 || strcmp(s, no[i]) == 0) {
                        *ret = strcmp(s, yes[i]) == 0;
                        return 0;
                }
        return -EINVAL;
}

static int invalid(Buf *err, const char *arg, const char *flag, const char *why) {
        return sched_opt_errf(err, -EINVAL, "invalid argument \"%s\" for \"--%s\" flag: %s", arg, flag, why);
}

int sched_log_flag(SchedOptions *o, int c, const char *name, const char *arg, Buf *err) {
        KlogConfig *l = &o->log;
        bool *flags[] = {
                [OPT_LOG_TOSTDERR - OPT_LOG_BASE] = &l->to_stderr,
                [OPT_LOG_ALSO - OPT_LOG_BASE] = &l->also_to_stderr,
                [OPT_LOG_ONE_OUTPUT - OPT_LOG_BASE] = &l->one_output,
                [OPT_LOG_SKIP_HEADERS - OPT_LOG_BASE] = &l->skip_headers,
                [OPT_LOG_SKIP_LOG_HEADERS - OPT_LOG_BASE] = &l->skip_log_headers,
                [OPT_LOG_ADD_DIR - OPT_LOG_BASE] = &l->add_dir_header,
                [OPT_LOG_SANITIZATION - OPT_LOG_BASE] = &o->log_sanitization,
                [OPT_LOG_END - OPT_LOG_BASE] = NULL,
        };
        char why[128];
        if (c != OPT_LOG_FLUSH_FREQ && c != OPT_LOG_FORMAT_NAME && !o->log_flag_1_20)
                o->log_flag_1_20 = name;        /* 1.32 has none of the others */
        if (c - OPT_LOG_BASE >= 0 && c < OPT_LOG_END && flags[c - OPT_LOG_BASE]) {
                if (parse_go_bool(arg, flags[c - OPT_LOG_BASE]) < 0) {
                        snprintf(why, sizeof why, "strconv.ParseBool: parsing \"%s\": invalid syntax", arg);
                        return invalid(err, arg, name, why);
                }
                return 0;
        }
        switch (c) {
        case OPT_LOG_DIR:
        case OPT_LOG_FILE: {
                char *dst = c == OPT_LOG_DIR ? l->log_dir : l->log_file;
                if (strlen(arg) >= sizeof l->log_dir)
                        return sched_opt_errf(err, -EINVAL, "--%s: longer than %zu bytes", name, sizeof l->log_dir - 1);
                snprintf(dst, sizeof l->log_dir, "%s", arg);
                return 0;
        }
        case OPT_LOG_MAX_SIZE: {
                /* pflag's uint64: strconv.ParseUint(s, 0, 64) */
                char *end;
                errno = 0;
                unsigned long long v = strtoull(arg, &end, 0);
                if (!*arg || *end || arg[0] == '-' || arg[0] == '+' || arg[0] == ' ') {
                        snprintf(why, sizeof why, "strconv.ParseUint: parsing \"%s\": invalid syntax", arg);
                        return invalid(err, arg, name, why);
                }
                if (errno == ERANGE) {
                        snprintf(why, sizeof why, "strconv.ParseUint: parsing \"%s\": value out of range", arg);
                        return invalid(err, arg, name, why);
                }
                l->file_max_size_mb = v;
                return 0;
        }
        case OPT_LOG_THRESHOLD:
                if (klog_parse_severity(arg, &l->stderr_threshold) < 0) {
                        snprintf(why, sizeof why, "strconv.ParseInt: parsing \"%s\": invalid syntax", arg);
                        return invalid(err, arg, name, why);
                }
                return 0;
        case OPT_LOG_BACKTRACE: {
                int r = klog_parse_backtrace_at(arg, l->backtrace_file, sizeof l->backtrace_file, &l->backtrace_line);
                if (r < 0)
                        return invalid(err, arg, name, r == -ERANGE ? "negative or zero value for level" :
                                                                     "syntax error: expect file.go:234");
                return 0;
        }
        case OPT_LOG_FLUSH_FREQ:
                /* every line is written at once; klog's default is 5s */
                if (duration_parse(arg, &o->log_flush_usec) < 0)
                        return sched_opt_errf(err, -EINVAL, "--log-flush-frequency: not a duration: %s", arg);
                return 0;
        case OPT_LOG_FORMAT_NAME:
                return sched_opt_set_str(&o->logging_format, arg);
        case OPT_HARD_POD_WEIGHT: {
                /* pflag's int32; the range is checked as v1.20's DeprecatedOptions.Validate */
                char *end;
                errno = 0;
                long long v = strtoll(arg, &end, 0);
                if (!*arg || *end || errno == ERANGE || v < INT32_MIN || v > INT32_MAX) {
                        snprintf(why, sizeof why, "strconv.ParseInt: parsing \"%s\": %s", arg,
                                 *arg && !*end ? "value out of range" : "invalid syntax");
                        return invalid(err, arg, name, why);
                }
                if (v < 0 || v > 100)
                        return sched_opt_errf(err, -EINVAL, "hardPodAffinitySymmetricWeight: Invalid value: %lld: not in "
                                              "valid range [0-100]", v);
                o->hard_pod_weight = (int) v;
                o->set_hard_pod_weight = true;
                return 0;
        }
        }
        return -EINVAL;
}

int sched_log_settle(SchedOptions *o, bool line_1_32, Buf *err) {
        if (line_1_32 && o->log_flag_1_20)
                return sched_opt_errf(err, -EINVAL, "unknown flag: --%s", o->log_flag_1_20);
        /* v1.20's DeprecatedOptions.ApplyTo gives the weight to the one default profile's
         * InterPodAffinity: with --config the file's profiles run, and a Policy's profile gets
         * the Policy's own plugin configuration (its hardPodAffinitySymmetricWeight) */
        if (o->set_hard_pod_weight && o->config_path) {
                klog_warning("--hard-pod-affinity-symmetric-weight is ignored with --config, as kube-scheduler "
                             "ignores it: set InterPodAffinity's hardPodAffinityWeight in the profile's pluginConfig "
                             "of %s", o->config_path);
                o->set_hard_pod_weight = false;
        } else if (o->set_hard_pod_weight && (o->policy_path || o->policy_cm_name)) {
                klog_warning("%s", "--hard-pod-affinity-symmetric-weight is ignored with a Policy, as kube-scheduler "
                                   "gives the Policy's profile the Policy's own plugin configuration: set "
                                   "hardPodAffinitySymmetricWeight in the Policy");
                o->set_hard_pod_weight = false;
        }
        const char *fmt = o->logging_format ? o->logging_format : "text";
        if (strcmp(fmt, "text") != 0 && strcmp(fmt, "json") != 0)
                return line_1_32 ? sched_opt_errf(err, -EINVAL, "format: Invalid value: \"%s\": Unsupported log format", fmt) :
                                   sched_opt_errf(err, -EINVAL, "unsupported log format: %s", fmt);
        if (strcmp(fmt, "json") != 0)
                return 0;
        /* a non-default format honours -v only: the other logging flags set to anything but
         * their default are refused (component-base's Options.Validate; v1.20 names klog's
         * flags as Go's flag set does, in its order) */
        KlogConfig d;
        klog_config_init(&d);
        const KlogConfig *l = &o->log;
        bool vmodule = o->vmodule && *o->vmodule;
        if (line_1_32) {
                if (vmodule)
                        return sched_opt_errf(err, -EINVAL, "format: Invalid value: \"json\": Non-default format "
                                                            "doesn't honor flag: vmodule");
                o->log.format = KLOG_FORMAT_JSON_1_32;
                return 0;
        }
        const struct {
                const char *name;
                bool set;
        } v120[] = {
                { "add_dir_header", l->add_dir_header }, { "alsologtostderr", l->also_to_stderr },
                { "log_backtrace_at", l->backtrace_line != 0 }, { "log_dir", l->log_dir[0] != '\0' },
                { "log_file", l->log_file[0] != '\0' }, { "log_file_max_size", l->file_max_size_mb != d.file_max_size_mb },
                { "logtostderr", l->to_stderr != d.to_stderr }, { "one_output", l->one_output },
                { "skip_headers", l->skip_headers }, { "skip_log_headers", l->skip_log_headers },
                { "stderrthreshold", l->stderr_threshold != d.stderr_threshold }, { "vmodule", vmodule },
                { "log-flush-frequency", o->log_flush_usec != 5 * USEC_PER_SEC },
        };
        size_t n = 0;
        for (size_t i = 0; i < ELEMENTSOF(v120); i++)
                n += v120[i].set;
        /* utilerrors' aggregate: one message alone, several in brackets */
        size_t k = 0;
        for (size_t i = 0; i < ELEMENTSOF(v120); i++) {
                if (!v120[i].set)
                        continue;
                const char *open = n > 1 && k == 0 ? "[" : "", *sep = k > 0 ? ", " : "";
                k++;
                (void) buf_printf(err, "%s%snon-default logging format doesn't honor flag: %s%s", sep, open,
                                  v120[i].name, n > 1 && k == n ? "]" : "");
        }
        if (n)
                return -EINVAL;
        o->log.format = KLOG_FORMAT_JSON;
        return 0;
}
