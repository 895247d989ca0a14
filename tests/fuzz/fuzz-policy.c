/* libFuzzer target over the whole load path: parser (JSON and YAML), decoder, validator,
 * then for valid input the effective configuration, rendering (which must reload as valid
 * and render identically), translation and both diagnostic formats. The same bytes are also
 * tried as a ConfigMap manifest. Any crash, leak, sanitizer report or broken invariant is a
 * finding. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(const Policy *p) {
        PolicyEffective *e = NULL;
        if (policy_effective(p, NULL, &e) != 0)
                abort(); /* a loaded policy is valid by definition */
        json_decref(policy_effective_to_json(e));
        json_decref(policy_effective_predicates_json(e));
        json_decref(policy_effective_priorities_json(e));
        free(policy_effective_log_line(e));
        policy_effective_free(e);

        char *r1 = NULL, *r2 = NULL;
        if (policy_render(p, &r1) < 0)
                abort();
        PolicyDiags d = {};
        Policy *p2 = NULL;
        if (policy_load(r1, strlen(r1), NULL, &p2, &d) != 0)
                abort(); /* normalization must keep a policy valid */
        if (policy_render(p2, &r2) < 0 || strcmp(r1, r2) != 0)
                abort(); /* ... and be idempotent */
        free(r1);
        free(r2);
        policy_free(p2);
        policy_diags_clear(&d);

        json_t *cfg = NULL;
        if (policy_translate(p, "fuzz", NULL, &cfg, &d) != 0)
                abort();
        json_decref(cfg);
        policy_diags_clear(&d);
        cfg = NULL;
        if (policy_translate_to(p, POLICY_TRANSLATE_V1BETA1, "fuzz", NULL, &cfg, &d) != 0)
                abort();
        json_decref(cfg);
        policy_diags_clear(&d);
}

static void report(PolicyDiags *d) {
        policy_diags_sort(d);
        char *text = NULL;
        if (policy_diags_format_text(d, "fuzz", &text) == 0)
                free(text);
        json_decref(policy_diags_to_json(d));
        policy_diags_clear(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const char *text = (const char *) data;
        /* The first byte picks the parser, so both are fuzzed on every input shape. */
        PolicyOptions opts = { .format = size > 0 ? (PolicyFormat) (data[0] % 3) : POLICY_FORMAT_AUTO,
                               .taint_nodes_by_condition_off = size > 1 && (data[1] & 1) };
        PolicyDiags d = {};
        Policy *p = NULL;
        if (policy_load(text, size, &opts, &p, &d) == 0) {
                if (d.n_errors != 0)
                        abort();
                exercise(p);
                policy_free(p);
        }
        report(&d);
        p = NULL;
        if (policy_load_configmap(text, size, NULL, &p, &d) == 0)
                policy_free(p);
        report(&d);
        return 0;
}
