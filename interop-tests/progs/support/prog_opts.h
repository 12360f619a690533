/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The command line of the librdkafka test programs, parsed from a table of
 * options instead of a getopt loop in each program: strings (optionally one
 * of a list), bounded numbers, flags, repeated options (-X key=value, -t
 * topic...) and, for what fits none of these, a program's own parser.
 */
#ifndef GR_INTEROP_PROG_OPTS_H
#define GR_INTEROP_PROG_OPTS_H

#include <stdbool.h>
#include <stddef.h>

/* What an option's argument becomes, and the type of prog_opt_t.out. */
typedef enum prog_opt_kind {
    PROG_OPT_STRING, /* const char **: the argument (one of .choices, if set) */
    PROG_OPT_CHOICE, /* int *: the index of the argument in .choices */
    PROG_OPT_LONG,   /* long *: a decimal in [.min, .max] */
    PROG_OPT_INT,    /* int *: a decimal in [.min, .max] (within int) */
    PROG_OPT_FLAG,   /* bool *: set to true; the option takes no argument */
    PROG_OPT_LIST,   /* const char **: an array of .max; *.count of them set */
    PROG_OPT_CUSTOM, /* anything: .parse(.out, argument) says 0 or -EINVAL */
} prog_opt_kind_t;

typedef struct prog_opt {
    char letter;
    prog_opt_kind_t kind;
    void *out;
    bool required;              /* a string must be given, a list be non-empty */
    long min, max;              /* PROG_OPT_LONG, PROG_OPT_INT; max: LIST size */
    int *count;                 /* PROG_OPT_LIST: how many are set */
    const char *const *choices; /* NULL-terminated: STRING (optional), CHOICE */
    int (*parse)(void *out, const char *arg);
} prog_opt_t;

/* One row of a table of options (L the letter, O where the value goes), for
 * each kind; a string limited to .choices is written out. */
#define PROG_STRING(l, o)                                                                          \
    {                                                                                              \
        .letter = (l), .kind = PROG_OPT_STRING, .out = (o)                                         \
    }
#define PROG_REQUIRED(l, o)                                                                        \
    {                                                                                              \
        .letter = (l), .kind = PROG_OPT_STRING, .out = (o), .required = true                       \
    }
#define PROG_CHOICE(l, o, names)                                                                   \
    {                                                                                              \
        .letter = (l), .kind = PROG_OPT_CHOICE, .out = (o), .choices = (names)                     \
    }
#define PROG_FLAG(l, o)                                                                            \
    {                                                                                              \
        .letter = (l), .kind = PROG_OPT_FLAG, .out = (o)                                           \
    }
#define PROG_LONG(l, o, lo, hi)                                                                    \
    {                                                                                              \
        .letter = (l), .kind = PROG_OPT_LONG, .out = (o), .min = (lo), .max = (hi)                 \
    }
#define PROG_INT(l, o, lo, hi)                                                                     \
    {                                                                                              \
        .letter = (l), .kind = PROG_OPT_INT, .out = (o), .min = (lo), .max = (hi)                  \
    }
#define PROG_LIST(l, arr, n, size)                                                                 \
    {                                                                                              \
        .letter = (l), .kind = PROG_OPT_LIST, .out = (arr), .max = (size), .count = (n)            \
    }
#define PROG_REQUIRED_LIST(l, arr, n, size)                                                        \
    {                                                                                              \
        .letter = (l), .kind = PROG_OPT_LIST, .out = (arr), .required = true, .max = (size),       \
        .count = (n)                                                                               \
    }
#define PROG_CUSTOM(l, o, fn)                                                                      \
    {                                                                                              \
        .letter = (l), .kind = PROG_OPT_CUSTOM, .out = (o), .parse = (fn)                          \
    }

/* The -w option of the programs that wait: seconds in [1, 86400]. */
#define PROG_OPT_WAIT_S(o) PROG_INT('w', (o), 1, 86400)

/* The -X key=value option, repeated: librdkafka settings for the clients. */
#define PROG_OPT_EXTRA(arr, n, size) PROG_LIST('X', (arr), (n), (size))

/*
 * Parses argv by OPTS (N of them) with getopt. With OPERANDS, options end at
 * the first operand and operands may follow; without, none may. Returns the
 * index of the first operand, or -EINVAL (an unknown option, a bad or
 * missing argument, a list full, a required option missing, an operand
 * where none may be): the caller prints its usage.
 */
int prog_parse_opts(int argc, char **argv, const prog_opt_t *opts, size_t n, bool operands);

#endif
