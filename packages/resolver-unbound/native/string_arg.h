#ifndef DNSCORE_STRING_ARG_H
#define DNSCORE_STRING_ARG_H
#include <node_api.h>

/* A string argument copied into a malloc'd buffer (caller frees), or NULL with a TypeError thrown. */
char* string_arg(napi_env env, napi_value value);

#endif
