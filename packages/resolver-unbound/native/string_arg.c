/*
 * A JS string handed to the addon, copied for C: every string the addon takes (options, names,
 * process-wide claims) comes through here, and one holding a NUL is refused, since C would read
 * it as shorter than JS wrote it.
 */
#define NAPI_VERSION 8
#include "string_arg.h"

#include <stdlib.h>
#include <string.h>

char* string_arg(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
    napi_throw_type_error(env, NULL, "expected a string");
    return NULL;
  }
  char* text = malloc(length + 1);
  if (!text) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  if (strlen(text) != length) {
    free(text);
    napi_throw_type_error(env, NULL, "the string holds a NUL character");
    return NULL;
  }
  return text;
}
