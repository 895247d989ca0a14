#pragma once
/* A container's volumes, materialized for a local process. Building the plan is pure: the
 * pod's ConfigMap, Secret, downwardAPI and projected volumes become lists of files (with
 * items, modes and defaultMode honoured) from already-fetched objects; emptyDir and
 * hostPath become host directories to bind. Applying it happens in the forked child, inside
 * its private mount namespace: one tmpfs at a staging directory holds the files, and every
 * volumeMount (subPath included) is a bind mount from there onto its mountPath, read-only
 * for the API-backed kinds as the kubelet mounts them. Nothing shows outside the child. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tests/nodesim/expand.h"

#define VOLUME_MAX_FILES 4096
#define VOLUME_MAX_BYTES (64 * 1024 * 1024)

typedef struct VolumeFile {
        char *path;             /* relative to the volume root, validated: no "..", not absolute */
        unsigned char *data;
        size_t len;
        mode_t mode;
} VolumeFile;

typedef struct Volume {
        char *name;
        char *host_dir;         /* emptyDir / hostPath: bind this; NULL: files on tmpfs */
        VolumeFile *files;
        size_t n_files;
        bool read_only;         /* API-backed volumes are always read-only */
} Volume;

typedef struct VolumeMountPlan {
        size_t volume;          /* index into volumes */
        char *mount_path;       /* absolute */
        char *sub_path;         /* NULL or relative */
        bool read_only;
} VolumeMountPlan;

typedef struct VolumePlan {
        Volume *volumes;
        size_t n_volumes;
        VolumeMountPlan *mounts;
        size_t n_mounts;
} VolumePlan;

/* Builds the plan for container of pod. ctx->lookup gives ConfigMaps and Secrets; a
 * projected serviceAccountToken source asks it for kind "ServiceAccountToken" and the
 * service account's name (the object's status.token is written). empty_dir_base is the
 * host directory under which emptyDir volumes live (one subdirectory per volume name, made
 * by the caller). Returns 0; -ENOENT (a non-optional object or key missing), -EINVAL
 * (malformed or unsafe path), -EOPNOTSUPP (a volume kind that is not simulated), -E2BIG;
 * err says which. */
int volume_plan_build(const json_t *pod, const json_t *container, const EnvContext *ctx,
                      const char *empty_dir_base, VolumePlan *ret, char *err, size_t errlen);
void volume_plan_done(VolumePlan *p);

/* In the child: mounts a tmpfs at stage_dir (an existing directory), writes the files,
 * and bind-mounts every volumeMount, creating missing mount points. The caller must
 * already be in a private mount namespace. Returns 0 or -errno; err says which step. */
int volume_plan_apply(const VolumePlan *p, const char *stage_dir, char *err, size_t errlen);
