#include "progress.h"

#include <stdio.h>
#include <string.h>

#include "size_text.h"

int progress_meter_update(progress_meter *m, const char *stage, unsigned long long done, unsigned long long total,
                          double now)
{
    snprintf(m->stage, sizeof(m->stage), "%s", stage);
    int fresh = m->start == 0 || total != m->total || done < m->last_done;
    if (fresh) {
        m->start = now;
        m->first = done;
        m->total = total;
        m->last_line = 0;
        m->lines = 0;
        m->ended = 0;
    }
    m->last_done = done;
    return fresh;
}

static int counts_bytes(const char *stage)
{
    return !strncmp(stage, "reading", 7) || !strncmp(stage, "uploading", 9);
}

static void count_text(unsigned long long v, int bytes, char *out, size_t n)
{
    if (bytes) {
        snprintf(out, n, "%s", cuzk_size_str(v).s);
        return;
    }
    if (v < 10000)
        snprintf(out, n, "%llu", v);
    else if (v < 999950ULL)
        snprintf(out, n, "%.1f k", (double)v / 1e3);
    else if (v < 999995000ULL)
        snprintf(out, n, "%.2f M", (double)v / 1e6);
    else
        snprintf(out, n, "%.2f G", (double)v / 1e9);
}

static void duration_text(double s, char *out, size_t n)
{
    if (s < 100)
        snprintf(out, n, "%.0f s", s);
    else if (s < 6000)
        snprintf(out, n, "%.0f min", s / 60);
    else
        snprintf(out, n, "%.1f h", s / 3600);
}

void progress_format(const progress_meter *m, unsigned long long done, unsigned long long total, double now,
                     char *out, size_t n)
{
    int bytes = counts_bytes(m->stage);
    char d[32], t[32], r[40] = "", left[48] = "";
    count_text(done, bytes, d, sizeof(d));
    count_text(total, bytes, t, sizeof(t));
    double el = now - m->start;
    if (el >= 0.5 && done > m->first) {
        double rate = (double)(done - m->first) / el;
        char rt[32];
        count_text((unsigned long long)rate, bytes, rt, sizeof(rt));
        snprintf(r, sizeof(r), ", %s/s", rt);
        if (done < total) {
            char lt[24];
            duration_text((double)(total - done) / rate, lt, sizeof(lt));
            snprintf(left, sizeof(left), ", %s left", lt);
        }
    }
    int pct = total ? (int)(done * 100 / total) : 0;
    if (total > 0 && total <= 16) /* a few steps: a step count says more than a rate */
        snprintf(out, n, "%s: step %llu of %llu", m->stage, done + (done < total), total);
    else
        snprintf(out, n, "%s: %d%% (%s of %s%s%s)", m->stage, pct, d, t, r, left);
}
