/*
 * The claims on libunbound's process-wide settings (src/process-wide.ts), kept here because the
 * addon is loaded once per process and shared by every worker_threads thread, as libunbound's
 * globals are: claims kept in JS would be per realm, and a resolver in a worker would silently
 * change those of the main thread. A claim is a key (the settings, as JS compares them) and a
 * payload (JS's own form, handed back to say who disagrees or what is in force). One mutex
 * guards the list, so that "check, then claim" is one step across threads.
 *
 * JS API: claimProcessWide(key, payload, except?) -> a claim, or the payload of a live claim
 * whose key differs (none made then); `except` is a claim of the same owner to disregard
 * (reload). claim.release(). settingsInForce() -> a live claim's payload, or null. A claim is
 * released by release(), when its object is collected, or when its thread's environment ends
 * (a worker that exits without close()).
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "process_wide.h"
#include "string_arg.h"

typedef struct Claim {
  char* key;
  char* payload;
  napi_env env;
  int linked;
  struct Claim* next;
} Claim;

static pthread_mutex_t claims_lock = PTHREAD_MUTEX_INITIALIZER;
static Claim* claims;

/* Under claims_lock. */
static void unlink_claim(Claim* claim) {
  if (!claim->linked) return;
  for (Claim** at = &claims; *at; at = &(*at)->next) {
    if (*at != claim) continue;
    *at = claim->next;
    break;
  }
  claim->linked = 0;
}

static void claim_free(Claim* claim) {
  free(claim->key);
  free(claim->payload);
  free(claim);
}


static void on_claim_finalize(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  Claim* claim = data;
  pthread_mutex_lock(&claims_lock);
  unlink_claim(claim);
  pthread_mutex_unlock(&claims_lock);
  claim_free(claim);
}

/*
 * The environment's thread ends (a worker exits or is terminated without close()): its claims no
 * longer bind anyone. Node also finalizes wrapped objects at teardown; this does not rely on it.
 */
static void on_env_cleanup(void* arg) {
  pthread_mutex_lock(&claims_lock);
  for (Claim** at = &claims; *at;) {
    Claim* claim = *at;
    if (claim->env != arg) {
      at = &claim->next;
      continue;
    }
    *at = claim->next;
    claim->linked = 0;
  }
  pthread_mutex_unlock(&claims_lock);
}

static napi_value release(napi_env env, napi_callback_info info) {
  napi_value self;
  void* data;
  if (napi_get_cb_info(env, info, NULL, NULL, &self, NULL) != napi_ok) return NULL;
  if (napi_unwrap(env, self, &data) != napi_ok) {
    napi_throw_type_error(env, NULL, "not a process-wide claim");
    return NULL;
  }
  pthread_mutex_lock(&claims_lock);
  unlink_claim(data);
  pthread_mutex_unlock(&claims_lock);
  return NULL;
}

static napi_value claim_process_wide(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "claimProcessWide(key, payload, except?)");
    return NULL;
  }
  void* except = NULL;
  napi_valuetype type = napi_undefined;
  if (argc > 2) napi_typeof(env, argv[2], &type);
  if (type == napi_object && napi_unwrap(env, argv[2], &except) != napi_ok) {
    napi_throw_type_error(env, NULL, "except: not a process-wide claim");
    return NULL;
  }
  Claim* claim = calloc(1, sizeof *claim);
  if (!claim) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  claim->env = env;
  claim->key = string_arg(env, argv[0]);
  claim->payload = claim->key ? string_arg(env, argv[1]) : NULL;
  if (!claim->payload) {
    claim_free(claim);
    return NULL;
  }
  napi_value object, method, result = NULL;
  if (napi_create_object(env, &object) != napi_ok ||
      napi_create_function(env, "release", NAPI_AUTO_LENGTH, release, NULL, &method) != napi_ok ||
      napi_set_named_property(env, object, "release", method) != napi_ok ||
      napi_wrap(env, object, claim, on_claim_finalize, NULL, NULL) != napi_ok) {
    claim_free(claim);
    return NULL;
  }
  pthread_mutex_lock(&claims_lock);
  const Claim* other = claims;
  while (other && (other == except || strcmp(other->key, claim->key) == 0)) other = other->next;
  if (other) {
    napi_create_string_utf8(env, other->payload, NAPI_AUTO_LENGTH, &result);
  } else {
    claim->linked = 1;
    claim->next = claims;
    claims = claim;
    result = object;
  }
  pthread_mutex_unlock(&claims_lock);
  return result;
}

static napi_value settings_in_force(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  pthread_mutex_lock(&claims_lock);
  if (claims) napi_create_string_utf8(env, claims->payload, NAPI_AUTO_LENGTH, &result);
  else napi_get_null(env, &result);
  pthread_mutex_unlock(&claims_lock);
  return result;
}

napi_status process_wide_init(napi_env env, napi_value exports) {
  napi_status status = napi_add_env_cleanup_hook(env, on_env_cleanup, env);
  napi_property_descriptor exports_[] = {
    {"claimProcessWide", NULL, claim_process_wide, NULL, NULL, NULL, napi_default, NULL},
    {"settingsInForce", NULL, settings_in_force, NULL, NULL, NULL, napi_default, NULL},
  };
  if (status == napi_ok) status = napi_define_properties(env, exports, 2, exports_);
  return status;
}
