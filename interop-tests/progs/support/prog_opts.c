/* SPDX-License-Identifier: Apache-2.0 */
#include "prog_opts.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "rdk_util.h"

/* '+', one letter per option and ':' after each that takes an argument. */
#define PROG_OPTSTRING_MAX 128

static int prog_choice(const char *const *choices, const char *arg)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(choices[i], arg) == 0)
            return i;
    return -EINVAL;
}

/* Stores ARG (NULL for a flag) as OPT says. 0 or -EINVAL. */
static int prog_store(const prog_opt_t *opt, const char *arg)
{
    long number;
    int index;

    switch (opt->kind) {
    case PROG_OPT_STRING:
        if (opt->choices && prog_choice(opt->choices, arg) < 0)
            return -EINVAL;
        *(const char **)opt->out = arg;
        return 0;
    case PROG_OPT_CHOICE:
        index = prog_choice(opt->choices, arg);
        if (index < 0)
            return -EINVAL;
        *(int *)opt->out = index;
        return 0;
    case PROG_OPT_LONG:
        return rdk_parse_long(arg, opt->min, opt->max, (long *)opt->out);
    case PROG_OPT_INT:
        if (rdk_parse_long(arg, opt->min, opt->max, &number) != 0 || number < INT_MIN ||
            number > INT_MAX)
            return -EINVAL;
        *(int *)opt->out = (int)number;
        return 0;
    case PROG_OPT_FLAG:
        *(bool *)opt->out = true;
        return 0;
    case PROG_OPT_LIST:
        if (*opt->count >= opt->max)
            return -EINVAL;
        ((const char **)opt->out)[(*opt->count)++] = arg;
        return 0;
    case PROG_OPT_CUSTOM:
        return opt->parse(opt->out, arg);
    }
    return -EINVAL;
}

/* Whether a required option was given. */
static bool prog_given(const prog_opt_t *opt)
{
    if (!opt->required)
        return true;
    if (opt->kind == PROG_OPT_LIST)
        return *opt->count > 0;
    return *(const char **)opt->out != NULL; /* required is for strings and lists */
}

int prog_parse_opts(int argc, char **argv, const prog_opt_t *opts, size_t n, bool operands)
{
    char optstring[PROG_OPTSTRING_MAX];
    size_t len = 0;
    int letter;

    optstring[len++] = '+'; /* options first, as POSIX: the operands stay in order */
    for (size_t i = 0; i < n; i++) {
        if (len + 3 > sizeof(optstring))
            return -EINVAL;
        optstring[len++] = opts[i].letter;
        if (opts[i].kind != PROG_OPT_FLAG)
            optstring[len++] = ':';
    }
    optstring[len] = '\0';
    while ((letter = getopt(argc, argv, optstring)) != -1) {
        size_t i = 0;

        while (i < n && opts[i].letter != letter)
            i++;
        if (i == n || prog_store(&opts[i], optarg) != 0)
            return -EINVAL;
    }
    for (size_t i = 0; i < n; i++)
        if (!prog_given(&opts[i]))
            return -EINVAL;
    if (!operands && optind != argc)
        return -EINVAL;
    return optind;
}
