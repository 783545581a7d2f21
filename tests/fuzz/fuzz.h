/* fuzz.h - shared by the fuzz targets and their replay driver.
 *
 * Each target defines LLVMFuzzerTestOneInput. Built with clang -fsanitize=fuzzer
 * (cmake -DLLMROOF_FUZZ=ON, scripts/fuzz.sh) it is a libFuzzer campaign; built with
 * replay.c it replays tests/fuzz/corpus/<target>/ as an ordinary ctest test, so every
 * reproducer of a fixed finding stays a regression test. A target reports a broken
 * invariant (a non-finite number from a successful parse, a failed round trip) by
 * calling FUZZ_CHECK, which aborts: libFuzzer and the replay driver both see a crash. */
#ifndef LLMROOF_FUZZ_H
#define LLMROOF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* A NUL-terminated copy of the input (the parsers under test take C strings or
 * text+length; the copy lets ASan see reads past `size`). Caller frees. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
