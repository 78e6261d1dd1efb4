/**
 * The Lua scripts that change shared entries. Each runs atomically in Redis, so the order in
 * which Redis runs them is the order every subscriber hears of them.
 */

/**
 * Mark: KEYS[1] the entry, ARGV[1] its value, ARGV[2] ms in the box, ARGV[3] the channel,
 * ARGV[4] the message, ARGV[5] the longest value a node writes (bytes), ARGV[6] (optional) the
 * SHA-1 (hex) of a value the caller refused. The later end wins: a string entry that lasts at
 * least as long stays and is returned as {ms left, value}; otherwise ours is stored with its own
 * expiry (PX), published, and 1 returned.
 * A key without expiry (-1), of another type or longer than ARGV[5] was not written by us and
 * is replaced (never sent back whole); so is one that still holds the refused value (a shape no
 * node writes: kept, it would hide our mark).
 */
export const MARK_SCRIPT = `
local left = redis.call('PTTL', KEYS[1])
local ms = tonumber(ARGV[2])
if left >= ms and redis.call('TYPE', KEYS[1])['ok'] == 'string'
    and redis.call('STRLEN', KEYS[1]) <= tonumber(ARGV[5]) then
  local kept = redis.call('GET', KEYS[1])
  if redis.sha1hex(kept) ~= ARGV[6] then
    return {left, kept}
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ms)
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`;

/** Clear: KEYS[1] the entry, ARGV[1] the channel, ARGV[2] the message. */
export const CLEAR_SCRIPT = `
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`;
