/* A small strict JSON reader for the files certification reads back (its
 * own reports, for `plumb certify merge` and --rerun-failures). RFC 8259
 * without extensions: no comments, no trailing commas, no NaN, no
 * duplicate keys; bounded in size (conf_json_parse's max_bytes) and nesting
 * depth (CONF_JSON_MAX_DEPTH). Errors name file:line:col. */
#ifndef PLUMB_CONF_JSON_H
#define PLUMB_CONF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/core.h"

#define CONF_JSON_MAX_DEPTH 32

typedef enum conf_json_type {
    CONF_JSON_NULL,
    CONF_JSON_BOOL,
    CONF_JSON_NUMBER,
    CONF_JSON_STRING,
    CONF_JSON_ARRAY,
    CONF_JSON_OBJECT,
} conf_json_type;

typedef struct conf_json {
    conf_json_type type;
    bool boolean;
    double number;
    const char *raw;             /* a number's text (integers beyond 2^53 stay exact) */
    const char *string;          /* NUL-terminated; strings holding \u0000 are rejected */
    uint32_t n;                  /* items (array) or members (object) */
    struct conf_json *items;     /* array items, or object member values */
    const char **keys;           /* object member names, in file order */
    plumb_loc loc;               /* where the value starts */
} conf_json;

typedef struct conf_json_doc {
    plumb_arena *arena;          /* owns every value and string */
    conf_json *root;
    const char *file;            /* the name errors use (not owned) */
} conf_json_doc;

/* Parses text[len] (the whole input must be one value, surrounded by
 * whitespace only). file names the input in messages. */
bool conf_json_parse(const char *text, size_t len, const char *file, conf_json_doc *doc, plumb_diag *d);
/* Reads and parses a file of at most max_bytes (0 = 256 MiB). */
bool conf_json_load(const char *path, size_t max_bytes, conf_json_doc *doc, plumb_diag *d);
void conf_json_free(conf_json_doc *doc);

/* The member named key of an object, or NULL (also when v is no object). */
const conf_json *conf_json_get(const conf_json *v, const char *key);

#endif
