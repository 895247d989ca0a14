#pragma once
/* The types of a KubeSchedulerConfiguration as tables the strict decoder walks (ksc-decode.c):
 * each Go struct is an object type with its JSON field names, each Go slice an array type. */

#include <stdbool.h>

typedef enum KscTypeKind {
        KT_STRING,
        KT_BOOL,
        KT_INT32,
        KT_INT64,
        KT_FLOAT,               /* float32 */
        KT_DURATION,            /* metav1.Duration: decoded to nanoseconds */
        KT_BYTES,               /* []byte: standard base64, kept as written */
        KT_OBJECT,
        KT_ARRAY,
        KT_STRING_MAP,          /* map[string]string */
        KT_PLUGIN_CONFIGS,      /* []PluginConfig: args typed by each entry's name */
        KT_ARGS,                /* PluginConfig.args (decoded by KT_PLUGIN_CONFIGS) */
} KscTypeKind;

typedef struct KscType KscType;

typedef struct KscField {
        const char *name;
        const KscType *type;
} KscField;

struct KscType {
        KscTypeKind kind;
        const char *what;               /* objects: the Go type's name, for messages */
        const KscField *fields;         /* objects: terminated by { NULL } */
        const KscType *elem;            /* arrays */
};

/* The versions of kubescheduler.config.k8s.io this product reads. */
typedef enum KscVersion {
        KSC_V1BETA1,            /* v1.20.2 */
        KSC_V1BETA2,            /* v1.22 */
        KSC_V1BETA3,            /* v1.23-1.28: the shape of v1 */
        KSC_V1,                 /* v1.32 */
        _KSC_VERSION_MAX,
} KscVersion;

/* KubeSchedulerConfiguration of the version. */
const KscType *ksc_schema_root(KscVersion v);
/* The arguments type of a plugin (<Name>Args registered in the version), NULL when it has none
 * (upstream then keeps the args undecoded). */
const KscType *ksc_schema_args(const char *plugin, KscVersion v);
