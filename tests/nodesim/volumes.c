/* Volume plans: see volumes.h. */
#include "tests/nodesim/volumes.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base64.h"
#include "common/macro.h"
#include "tests/nodesim/util.h"


/* Relative, no "..", no empty components: what the API server also demands of items. */
static bool rel_path_ok(const char *p) {
        if (!p || !*p || *p == '/' || strlen(p) > 1024)
                return false;
        const char *s = p;
        while (*s) {
                const char *e = strchrnul(s, '/');
                size_t n = (size_t) (e - s);
                if (n == 0 || (n == 2 && s[0] == '.' && s[1] == '.'))
                        return false;
                s = *e ? e + 1 : e;
        }
        return true;
}

static void volume_done(Volume *v) {
        free(v->name);
        free(v->host_dir);
        for (size_t i = 0; i < v->n_files; i++) {
                free(v->files[i].path);
                free(v->files[i].data);
        }
        free(v->files);
}

void volume_plan_done(VolumePlan *p) {
        for (size_t i = 0; i < p->n_volumes; i++)
                volume_done(&p->volumes[i]);
        free(p->volumes);
        for (size_t i = 0; i < p->n_mounts; i++) {
                free(p->mounts[i].mount_path);
                free(p->mounts[i].sub_path);
        }
        free(p->mounts);
        *p = (VolumePlan) {};
}

typedef struct Builder {
        Volume *v;
        size_t bytes;
        char *err;
        size_t errlen;
} Builder;

/* Adds (or replaces: later projected sources win, as in the kubelet) a file. Takes data. */
static int add_file(Builder *b, const char *path, unsigned char *data, size_t len, mode_t mode) {
        _cleanup_free_ unsigned char *d = data;
        if (!rel_path_ok(path))
                return ns_errorf(b->err, b->errlen, -EINVAL, "volume %s: unsafe path '%s'", b->v->name, path);
        if (b->bytes + len > VOLUME_MAX_BYTES)
                return ns_errorf(b->err, b->errlen, -E2BIG, "volume %s: larger than %d bytes", b->v->name,
                            VOLUME_MAX_BYTES);
        Volume *v = b->v;
        for (size_t i = 0; i < v->n_files; i++)
                if (strcmp(v->files[i].path, path) == 0) {
                        free(v->files[i].data);
                        v->files[i].data = TAKE_PTR(d);
                        v->files[i].len = len;
                        v->files[i].mode = mode;
                        b->bytes += len;
                        return 0;
                }
        if (v->n_files >= VOLUME_MAX_FILES)
                return ns_errorf(b->err, b->errlen, -E2BIG, "volume %s: more than %d files", v->name, VOLUME_MAX_FILES);
        VolumeFile *f = realloc(v->files, (v->n_files + 1) * sizeof(VolumeFile));
        if (!f)
                return -ENOMEM;
        v->files = f;
        char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        v->files[v->n_files++] = (VolumeFile) { .path = p, .data = TAKE_PTR(d), .len = len, .mode = mode };
        b->bytes += len;
        return 0;
}

static int mode_of(const json_t *j, mode_t def, mode_t *ret) {
        json_t *m = json_object_get(j, "mode");
        if (!m)
                m = json_object_get(j, "defaultMode");
        if (!m) {
                *ret = def;
                return 0;
        }
        json_int_t v = json_integer_value(m);
        if (!json_is_integer(m) || v < 0 || v > 0777)
                return -EINVAL;
        *ret = (mode_t) v;
        return 0;
}

/* The value of key in a ConfigMap (data or binaryData) or Secret (base64 data). */
static int object_key(const json_t *obj, bool secret, const char *key, unsigned char **ret, size_t *ret_len) {
        const char *v = json_string_value(json_object_get(json_object_get(obj, "data"), key));
        bool b64 = secret;
        if (!v && !secret) {
                v = json_string_value(json_object_get(json_object_get(obj, "binaryData"), key));
                b64 = true;
        }
        if (!v)
                return -ENOENT;
        if (b64)
                return base64_decode(v, strlen(v), ret, ret_len);
        size_t n = strlen(v);
        unsigned char *d = malloc(n + 1);
        if (!d)
                return -ENOMEM;
        memcpy(d, v, n + 1);
        *ret = d;
        *ret_len = n;
        return 0;
}

/* configMap / secret sources (volume or projected): name, items, optional. */
static int add_object_source(Builder *b, const json_t *pod, const EnvContext *ctx, const json_t *src, bool secret,
                             mode_t def_mode) {
        const char *ns = json_string_value(json_object_get(json_object_get(pod, "metadata"), "namespace"));
        const char *kind = secret ? "Secret" : "ConfigMap";
        const char *name = json_string_value(json_object_get(src, secret && json_object_get(src, "secretName")
                                                                           ? "secretName" : "name"));
        if (!name)
                return ns_errorf(b->err, b->errlen, -EINVAL, "volume %s: %s source without a name", b->v->name, kind);
        bool optional = json_is_true(json_object_get(src, "optional"));
        const json_t *obj = ctx->lookup ? ctx->lookup(kind, ns, name, ctx->userdata) : NULL;
        if (!obj) {
                if (optional)
                        return 0;
                return ns_errorf(b->err, b->errlen, -ENOENT, "volume %s: %s %s not found", b->v->name, kind, name);
        }
        int r;
        json_t *items = json_object_get(src, "items");
        if (json_array_size(items) > 0) {
                json_t *it;
                size_t i;
                json_array_foreach(items, i, it) {
                        const char *key = json_string_value(json_object_get(it, "key"));
                        const char *path = json_string_value(json_object_get(it, "path"));
                        mode_t mode;
                        if (!key || !path || mode_of(it, def_mode, &mode) < 0)
                                return ns_errorf(b->err, b->errlen, -EINVAL, "volume %s: item %zu needs key and path",
                                            b->v->name, i);
                        unsigned char *d;
                        size_t len;
                        r = object_key(obj, secret, key, &d, &len);
                        if (r == -ENOENT && optional)
                                continue;
                        if (r < 0)
                                return ns_errorf(b->err, b->errlen, r, "volume %s: %s %s has no key %s", b->v->name, kind,
                                            name, key);
                        if ((r = add_file(b, path, d, len, mode)) < 0)
                                return r;
                }
                return 0;
        }
        static const char *const maps[] = { "data", "binaryData" };
        for (size_t m = 0; m < (secret ? 1 : 2); m++) {
                const char *key;
                json_t *v;
                json_object_foreach((json_t *) json_object_get(obj, maps[m]), key, v) {
                        unsigned char *d;
                        size_t len;
                        if ((r = object_key(obj, secret, key, &d, &len)) < 0)
                                return ns_errorf(b->err, b->errlen, r, "volume %s: %s %s key %s unreadable", b->v->name,
                                            kind, name, key);
                        if ((r = add_file(b, key, d, len, def_mode)) < 0)
                                return r;
                }
        }
        return 0;
}

static int add_downward_source(Builder *b, const json_t *pod, const EnvContext *ctx, const json_t *src,
                               mode_t def_mode) {
        json_t *it;
        size_t i;
        json_array_foreach(json_object_get(src, "items"), i, it) {
                const char *path = json_string_value(json_object_get(it, "path"));
                const char *field = json_string_value(json_object_get(json_object_get(it, "fieldRef"), "fieldPath"));
                const char *v;
                mode_t mode;
                if (!path || !field || mode_of(it, def_mode, &mode) < 0 || pod_field_value(pod, ctx, field, &v) < 0)
                        return ns_errorf(b->err, b->errlen, -EINVAL, "volume %s: downwardAPI item %zu unsupported",
                                    b->v->name, i);
                size_t n = strlen(v);
                unsigned char *d = malloc(n + 1);
                if (!d)
                        return -ENOMEM;
                memcpy(d, v, n + 1);
                int r = add_file(b, path, d, n, mode);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int add_token_source(Builder *b, const json_t *pod, const EnvContext *ctx, const json_t *src, mode_t mode) {
        const char *ns = json_string_value(json_object_get(json_object_get(pod, "metadata"), "namespace"));
        const char *sa = json_string_value(json_object_get(json_object_get(pod, "spec"), "serviceAccountName"));
        const char *path = json_string_value(json_object_get(src, "path"));
        if (!path)
                return ns_errorf(b->err, b->errlen, -EINVAL, "volume %s: serviceAccountToken without a path", b->v->name);
        const json_t *tr = ctx->lookup ? ctx->lookup("ServiceAccountToken", ns, sa ? sa : "default", ctx->userdata)
                                       : NULL;
        const char *token = json_string_value(json_object_get(json_object_get(tr, "status"), "token"));
        if (!token)
                return ns_errorf(b->err, b->errlen, -ENOENT, "volume %s: no token for service account %s yet",
                            b->v->name, sa ? sa : "default");
        size_t n = strlen(token);
        unsigned char *d = malloc(n + 1);
        if (!d)
                return -ENOMEM;
        memcpy(d, token, n + 1);
        return add_file(b, path, d, n, mode);
}

static int build_volume(Builder *b, const json_t *pod, const EnvContext *ctx, const json_t *vol,
                        const char *empty_dir_base) {
        Volume *v = b->v;
        json_t *src;
        mode_t mode;
        if ((src = json_object_get(vol, "configMap")) || (src = json_object_get(vol, "secret"))) {
                bool secret = json_object_get(vol, "secret") != NULL;
                v->read_only = true;
                if (mode_of(src, 0644, &mode) < 0)
                        return ns_errorf(b->err, b->errlen, -EINVAL, "volume %s: bad defaultMode", v->name);
                return add_object_source(b, pod, ctx, src, secret, mode);
        }
        if ((src = json_object_get(vol, "downwardAPI"))) {
                v->read_only = true;
                if (mode_of(src, 0644, &mode) < 0)
                        return ns_errorf(b->err, b->errlen, -EINVAL, "volume %s: bad defaultMode", v->name);
                return add_downward_source(b, pod, ctx, src, mode);
        }
        if ((src = json_object_get(vol, "projected"))) {
                v->read_only = true;
                mode_t def;
                if (mode_of(src, 0644, &def) < 0)
                        return ns_errorf(b->err, b->errlen, -EINVAL, "volume %s: bad defaultMode", v->name);
                json_t *s;
                size_t i;
                json_array_foreach(json_object_get(src, "sources"), i, s) {
                        json_t *x;
                        int r;
                        if ((x = json_object_get(s, "configMap")))
                                r = add_object_source(b, pod, ctx, x, false, def);
                        else if ((x = json_object_get(s, "secret")))
                                r = add_object_source(b, pod, ctx, x, true, def);
                        else if ((x = json_object_get(s, "downwardAPI")))
                                r = add_downward_source(b, pod, ctx, x, def);
                        else if ((x = json_object_get(s, "serviceAccountToken")))
                                r = add_token_source(b, pod, ctx, x, def);
                        else
                                r = ns_errorf(b->err, b->errlen, -EOPNOTSUPP, "volume %s: projected source %zu "
                                         "is not simulated", v->name, i);
                        if (r < 0)
                                return r;
                }
                return 0;
        }
        if (json_object_get(vol, "emptyDir")) {
                char dir[PATH_MAX];
                if ((size_t) snprintf(dir, sizeof(dir), "%s/%s", empty_dir_base, v->name) >= sizeof(dir))
                        return -ENAMETOOLONG;
                v->host_dir = strdup(dir);
                return v->host_dir ? 0 : -ENOMEM;
        }
        if ((src = json_object_get(vol, "hostPath"))) {
                const char *path = json_string_value(json_object_get(src, "path"));
                if (!path || path[0] != '/')
                        return ns_errorf(b->err, b->errlen, -EINVAL, "volume %s: hostPath needs an absolute path", v->name);
                v->host_dir = strdup(path);
                return v->host_dir ? 0 : -ENOMEM;
        }
        return ns_errorf(b->err, b->errlen, -EOPNOTSUPP, "volume %s: this volume kind is not simulated", v->name);
}

static const json_t *find_volume(const json_t *pod, const char *name) {
        json_t *v;
        size_t i;
        json_array_foreach(json_object_get(json_object_get(pod, "spec"), "volumes"), i, v) {
                const char *n = json_string_value(json_object_get(v, "name"));
                if (n && strcmp(n, name) == 0)
                        return v;
        }
        return NULL;
}

static int plan_build(const json_t *pod, const json_t *container, const EnvContext *ctx,
                      const char *empty_dir_base, VolumePlan *p, char *err, size_t errlen) {
        json_t *mounts = json_object_get(container, "volumeMounts"), *m;
        size_t n = json_array_size(mounts), i;
        if (n > 256)
                return ns_errorf(err, errlen, -E2BIG, "more than 256 volume mounts");
        p->mounts = calloc(n ? n : 1, sizeof(VolumeMountPlan));
        p->volumes = calloc(n ? n : 1, sizeof(Volume));
        if (!p->mounts || !p->volumes)
                return -ENOMEM;
        size_t bytes = 0;
        json_array_foreach(mounts, i, m) {
                const char *vname = json_string_value(json_object_get(m, "name"));
                const char *path = json_string_value(json_object_get(m, "mountPath"));
                const char *sub = json_string_value(json_object_get(m, "subPath"));
                if (!vname || !path || path[0] != '/' || strlen(path) >= PATH_MAX / 2)
                        return ns_errorf(err, errlen, -EINVAL, "volumeMount %zu needs a name and an absolute mountPath", i);
                if (sub && *sub && !rel_path_ok(sub))
                        return ns_errorf(err, errlen, -EINVAL, "volumeMount %s: unsafe subPath '%s'", vname, sub);
                size_t idx = p->n_volumes;
                for (size_t k = 0; k < p->n_volumes; k++)
                        if (strcmp(p->volumes[k].name, vname) == 0)
                                idx = k;
                if (idx == p->n_volumes) {
                        const json_t *vol = find_volume(pod, vname);
                        if (!vol)
                                return ns_errorf(err, errlen, -EINVAL, "volumeMount %s: no such volume", vname);
                        Volume *v = &p->volumes[p->n_volumes++];
                        if (!(v->name = strdup(vname)))
                                return -ENOMEM;
                        Builder b = { .v = v, .bytes = bytes, .err = err, .errlen = errlen };
                        int r = build_volume(&b, pod, ctx, vol, empty_dir_base);
                        if (r < 0)
                                return r;
                        bytes = b.bytes;
                }
                VolumeMountPlan *mp = &p->mounts[p->n_mounts++];
                mp->volume = idx;
                mp->mount_path = strdup(path);
                mp->sub_path = sub && *sub ? strdup(sub) : NULL;
                mp->read_only = json_is_true(json_object_get(m, "readOnly")) || p->volumes[idx].read_only;
                if (!mp->mount_path || (sub && *sub && !mp->sub_path))
                        return -ENOMEM;
        }
        return 0;
}

int volume_plan_build(const json_t *pod, const json_t *container, const EnvContext *ctx,
                      const char *empty_dir_base, VolumePlan *ret, char *err, size_t errlen) {
        VolumePlan p = {};
        int r = plan_build(pod, container, ctx, empty_dir_base, &p, err, errlen);
        if (r < 0) {
                volume_plan_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}

/* mkdir -p of the directory part of path. */
static int mkdir_parent(const char *path) {
        char buf[PATH_MAX];
        size_t n = strlen(path);
        if (n >= sizeof(buf))
                return -ENAMETOOLONG;
        memcpy(buf, path, n + 1);
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf)
                return 0;
        *slash = '\0';
        return ns_mkdir_p(buf, 0755);
}

int volume_plan_apply(const VolumePlan *p, const char *stage_dir, char *err, size_t errlen) {
        int r;
        if (mount("tmpfs", stage_dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=128m") < 0)
                return ns_errorf(err, errlen, negative_errno(), "tmpfs at %s: %m", stage_dir);
        char path[PATH_MAX];
        for (size_t i = 0; i < p->n_volumes; i++) {
                const Volume *v = &p->volumes[i];
                if (v->host_dir)
                        continue;
                snprintf(path, sizeof(path), "%s/%zu", stage_dir, i);
                if (mkdir(path, 0755) < 0)
                        return ns_errorf(err, errlen, negative_errno(), "mkdir %s: %m", path);
                for (size_t f = 0; f < v->n_files; f++) {
                        char fp[PATH_MAX];
                        if ((size_t) snprintf(fp, sizeof(fp), "%s/%s", path, v->files[f].path) >= sizeof(fp))
                                return ns_errorf(err, errlen, -ENAMETOOLONG, "volume %s: path too long", v->name);
                        if ((r = mkdir_parent(fp)) < 0 ||
                            (r = ns_write_file(fp, v->files[f].data, v->files[f].len, v->files[f].mode)) < 0)
                                return ns_errorf(err, errlen, r, "volume %s: writing %s failed", v->name, v->files[f].path);
                }
        }
        for (size_t i = 0; i < p->n_mounts; i++) {
                const VolumeMountPlan *m = &p->mounts[i];
                const Volume *v = &p->volumes[m->volume];
                char src[PATH_MAX];
                int n = v->host_dir ? snprintf(src, sizeof(src), "%s%s%s", v->host_dir, m->sub_path ? "/" : "",
                                               m->sub_path ? m->sub_path : "")
                                    : snprintf(src, sizeof(src), "%s/%zu%s%s", stage_dir, m->volume,
                                               m->sub_path ? "/" : "", m->sub_path ? m->sub_path : "");
                if (n < 0 || (size_t) n >= sizeof(src))
                        return ns_errorf(err, errlen, -ENAMETOOLONG, "volumeMount %s: path too long", m->mount_path);
                struct stat st;
                if (stat(src, &st) < 0) {
                        /* A subPath that does not exist yet is created as a directory, as the
                         * kubelet does for writable volumes. */
                        if (errno != ENOENT || !m->sub_path || ns_mkdir_p(src, 0755) < 0 ||
                            stat(src, &st) < 0)
                                return ns_errorf(err, errlen, -ENOENT, "volumeMount %s: %s does not exist",
                                            m->mount_path, m->sub_path ? m->sub_path : v->name);
                }
                if (S_ISDIR(st.st_mode))
                        r = ns_mkdir_p(m->mount_path, 0755);
                else {
                        r = mkdir_parent(m->mount_path);
                        if (r >= 0) {
                                int fd = open(m->mount_path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
                                if (fd < 0 && errno != EISDIR)
                                        r = negative_errno();
                                if (fd >= 0)
                                        close(fd);
                        }
                }
                if (r < 0)
                        return ns_errorf(err, errlen, r, "mount point %s cannot be created", m->mount_path);
                if (mount(src, m->mount_path, "none", MS_BIND | MS_REC, NULL) < 0)
                        return ns_errorf(err, errlen, negative_errno(), "bind %s: %m", m->mount_path);
                if (m->read_only &&
                    mount("none", m->mount_path, "none", MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, NULL) < 0)
                        return ns_errorf(err, errlen, negative_errno(), "read-only %s: %m", m->mount_path);
        }
        return 0;
}
