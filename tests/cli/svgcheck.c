/* svgcheck.c - checks the structure of an SVG chart llmroof wrote, as a reader would notice:
 *   1. every coordinate and size is a finite number (no "nan", no "inf");
 *   2. no two horizontal text labels overlap, their boxes estimated from the font size
 *      (0.6 em per character, 0.8 em above and 0.2 em below the baseline);
 *   3. every axis's tick labels (class="tick") are round: 0 or 1, 2, 2.5, 5 x 10^k, or evenly
 *      spaced multiples of such a step.
 * Rotated text (a transform) is left out of the overlap test.
 *   svgcheck FILE.svg...    exit 0 when every file passes, 1 otherwise (each failure named). */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct label {
    double x0, x1, y0, y1; /* estimated box */
    double x, y;           /* anchor */
    bool tick;             /* class="tick" */
    char axis[32];         /* data-axis: the axis a tick belongs to ("" when not given) */
    char text[128];
};

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(b, 2 * cap + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b)
        b[n] = '\0';
    *len = n;
    return b;
}

/* The value of attribute `name` inside the tag [tag, end), or false. */
static bool attr(const char *tag, const char *end, const char *name, char *out, size_t n)
{
    size_t nl = strlen(name);
    for (const char *p = tag; p && p < end; p++) {
        p = strstr(p, name);
        if (!p || p >= end)
            return false;
        if ((p == tag || isspace((unsigned char)p[-1])) && p[nl] == '=' && p[nl + 1] == '"') {
            const char *v = p + nl + 2, *q = strchr(v, '"');
            if (!q || q > end)
                return false;
            size_t k = (size_t)(q - v) < n - 1 ? (size_t)(q - v) : n - 1;
            memcpy(out, v, k);
            out[k] = '\0';
            return true;
        }
    }
    return false;
}

static int fails;

static void fail(const char *file, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "svgcheck: %s: ", file);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    fails++;
}

/* 1. numeric attributes hold finite numbers */
static void check_numbers(const char *file, const char *s)
{
    static const char *const names[] = { "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height",
                                         "points", "transform", "viewBox", "font-size" };
    for (const char *t = strchr(s, '<'); t; t = strchr(t + 1, '<')) {
        const char *end = strchr(t, '>');
        if (!end)
            break;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            char v[4096];
            if (!attr(t, end, names[k], v, sizeof v))
                continue;
            for (char *p = v; *p; p++)
                *p = (char)tolower((unsigned char)*p);
            if (strstr(v, "nan") || strstr(v, "inf"))
                fail(file, "attribute %s=\"%s\" is not a finite number", names[k], v);
        }
    }
}

/* "1.5k" -> 1500, "20%" -> 20; false if not a number */
static bool tick_value(const char *t, double *v)
{
    char *end;
    *v = strtod(t, &end);
    if (end == t)
        return false;
    static const char suffix[] = "kMGTPE";
    const char *p = strchr(suffix, *end);
    if (*end && p) {
        *v *= pow(1000, (double)(p - suffix + 1));
        end++;
    }
    if (*end == '%')
        end++;
    return *end == '\0' && isfinite(*v);
}

static bool is_round(double v)
{
    if (v == 0)
        return true;
    double e = floor(log10(fabs(v))), f = fabs(v) / pow(10, e);
    return fabs(f - 1) < 1e-6 || fabs(f - 2) < 1e-6 || fabs(f - 2.5) < 1e-6 || fabs(f - 5) < 1e-6 ||
           fabs(f - 10) < 1e-6;
}

/* 3. ticks on one axis: those naming the same data-axis; without one, those sharing a baseline
 * (an x axis), else an anchor x (a y axis) */
static void check_ticks(const char *file, const struct label *l, size_t n)
{
    static bool done[4096];
    memset(done, 0, sizeof done);
    for (size_t i = 0; i < n && i < 4096; i++) {
        if (!l[i].tick || done[i])
            continue;
        size_t same_y = 0;
        for (size_t j = i; j < n && j < 4096; j++)
            same_y += l[j].tick && !done[j] && fabs(l[j].y - l[i].y) < 0.01;
        bool by_y = same_y >= 2, by_name = l[i].axis[0] != '\0';
        double v[64];
        size_t k = 0;
        for (size_t j = i; j < n && j < 4096 && k < 64; j++) {
            bool same = by_name ? strcmp(l[j].axis, l[i].axis) == 0
                        : by_y  ? fabs(l[j].y - l[i].y) < 0.01
                                : fabs(l[j].x - l[i].x) < 0.01;
            if (!l[j].tick || done[j] || !same)
                continue;
            done[j] = true;
            if (tick_value(l[j].text, &v[k]))
                k++;
            else
                fail(file, "tick label '%s' is not a number%s", l[j].text, "");
        }
        bool all_round = true, even = k >= 2;
        for (size_t j = 0; j < k; j++)
            all_round &= is_round(v[j]);
        for (size_t j = 2; j < k && even; j++)
            even = fabs((v[j] - v[j - 1]) - (v[1] - v[0])) <= 1e-6 * fabs(v[1] - v[0]);
        if (k && !all_round && !(even && is_round(v[1] - v[0]))) {
            char a[64];
            snprintf(a, sizeof a, "%g ... %g", v[0], v[k - 1]);
            fail(file, "tick values %s are not round%s", a, "");
        }
    }
}

static void check_file(const char *file)
{
    size_t len;
    char *s = slurp(file, &len);
    if (!s) {
        fail(file, "cannot read the file%s%s", "", "");
        return;
    }
    check_numbers(file, s);
    struct label *l = calloc(4096, sizeof *l);
    size_t n = 0;
    for (const char *t = strstr(s, "<text"); t && l && n < 4096; t = strstr(t + 5, "<text")) {
        const char *end = strchr(t, '>'), *close = strstr(t, "</text>");
        if (!end || !close)
            break;
        char v[256];
        if (attr(t, end, "transform", v, sizeof v))
            continue;
        struct label *L = &l[n];
        double fs = attr(t, end, "font-size", v, sizeof v) ? atof(v) : 12;
        L->x = attr(t, end, "x", v, sizeof v) ? atof(v) : 0;
        L->y = attr(t, end, "y", v, sizeof v) ? atof(v) : 0;
        L->tick = attr(t, end, "class", v, sizeof v) && strcmp(v, "tick") == 0;
        if (!attr(t, end, "data-axis", L->axis, sizeof L->axis))
            L->axis[0] = '\0';
        /* the text without tags; entities count as one character */
        size_t k = 0, chars = 0;
        for (const char *p = end + 1; p < close; p++) {
            if (*p == '<') {
                p = strchr(p, '>');
                if (!p || p > close)
                    break;
                continue;
            }
            if (*p == '&') {
                const char *semi = strchr(p, ';');
                if (semi && semi < close)
                    p = semi;
            }
            if (k < sizeof L->text - 1)
                L->text[k++] = *p;
            chars++;
        }
        L->text[k] = '\0';
        double w = 0.6 * fs * (double)chars;
        char anchor[16] = "start";
        attr(t, end, "text-anchor", anchor, sizeof anchor);
        L->x0 = strcmp(anchor, "middle") == 0 ? L->x - w / 2 : strcmp(anchor, "end") == 0 ? L->x - w : L->x;
        L->x1 = L->x0 + w;
        L->y0 = L->y - 0.8 * fs;
        L->y1 = L->y + 0.2 * fs;
        if (chars)
            n++;
    }
    /* 2. no two label boxes overlap (by more than half a pixel either way) */
    for (size_t i = 0; l && i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (l[i].x0 + 0.5 < l[j].x1 && l[j].x0 + 0.5 < l[i].x1 && l[i].y0 + 0.5 < l[j].y1 && l[j].y0 + 0.5 < l[i].y1)
                fail(file, "text '%s' overlaps text '%s'", l[i].text, l[j].text);
    if (l)
        check_ticks(file, l, n);
    free(l);
    free(s);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: svgcheck FILE.svg...\n", stderr);
        return 2;
    }
    for (int i = 1; i < argc; i++)
        check_file(argv[i]);
    return fails ? 1 : 0;
}
