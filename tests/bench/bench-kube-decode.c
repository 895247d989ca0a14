/* Watch decoding throughput without a server: a stream of 200,000 MODIFIED events of a
 * Pod-sized object, fed in 16 KiB chunks (as libcurl hands them over) through the line
 * decoder and the event decoder. Reports events/s and MB/s.
 *   bench-kube-decode [--smoke]   --smoke: 1,000 events (proves it runs, measures nothing) */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/internal.h"
#include "kube/watch.h"
#include "tests/bench/bench-util.h"

#define EVENTS 200000

static unsigned long decoded;

static int on_line(const char *line, size_t len, void *userdata) {
        KubeWatchEventType t;
        json_t *ev = NULL, *obj = NULL;
        KubeError err;
        if (kube_watch_decode(line, len, &t, &ev, &obj, &err) < 0)
                return -1;
        decoded++;
        json_decref(ev);
        return 0;
}

int main(int argc, char *argv[]) {
        const int events = argc > 1 && strcmp(argv[1], "--smoke") == 0 ? 1000 : EVENTS;
#define TMPL \
                "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"pod-%06d\"," \
                "\"namespace\":\"bench\",\"uid\":\"5b1c6f1e-6a53-4c5c-9d5e-%012d\",\"resourceVersion\":\"%d\"," \
                "\"labels\":{\"app\":\"web\",\"tier\":\"frontend\"},\"creationTimestamp\":\"2026-11-21T08:00:00Z\"}," \
                "\"spec\":{\"nodeName\":\"node-%03d\",\"schedulerName\":\"default-scheduler\",\"containers\":[{\"name\":\"app\"," \
                "\"image\":\"registry.example.com/app:1.2.3\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}," \
                "\"limits\":{\"cpu\":\"500m\",\"memory\":\"256Mi\"}},\"ports\":[{\"containerPort\":8080,\"protocol\":\"TCP\"}]}]," \
                "\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"," \
                "\"tolerationSeconds\":300}]},\"status\":{\"phase\":\"Running\",\"podIP\":\"10.1.%d.%d\",\"conditions\":[{\"type\":" \
                "\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"2026-11-21T08:00:05Z\"}]}}}\n"
        Buf stream;
        buf_init(&stream, (size_t) 1 << 30);
        for (int i = 0; i < events; i++)
                if (buf_printf(&stream, TMPL, i, i, 1000 + i, i % 500, (i / 250) % 250, i % 250) < 0)
                        return 1;
        KubeLineDecoder d;
        kube_line_decoder_init(&d, 16 * 1024 * 1024);
        double t0 = bench_wall();
        for (size_t off = 0; off < stream.len; off += 16384) {
                size_t n = stream.len - off < 16384 ? stream.len - off : 16384;
                if (kube_line_decoder_feed(&d, stream.data + off, n, on_line, NULL) < 0)
                        return 1;
        }
        double t = bench_wall() - t0;
        printf("watch decoding: %lu events (%.1f MB, %zu bytes each) in %.2f s: %.0f events/s, %.1f MB/s\n", decoded,
               stream.len / 1e6, stream.len / (size_t) events, t, decoded / t, stream.len / 1e6 / t);
        kube_line_decoder_done(&d);
        buf_free(&stream);
        return decoded == (unsigned long) events ? 0 : 1;
}
