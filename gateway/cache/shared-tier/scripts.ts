import type { Redis } from 'ioredis'

/**
 * Stores an entry and its tag memberships unless a purge came after the flight began; frees the lock either way.
 * A tag set lives as long as the longest-lived entry it names: its expiry is extended, never shortened (a page
 * stored for 30 s must not take with it, 30 s later, the set that a day-long answer needs to be purged by).
 */
const STORE_SCRIPT = `
if (redis.call('GET', KEYS[3]) or '0') == ARGV[1] then
  local lifetime = tonumber(ARGV[3])
  redis.call('SET', KEYS[1], ARGV[2], 'PX', lifetime)
  for i = 4, #KEYS do
    redis.call('SADD', KEYS[i], ARGV[4])
    if redis.call('PTTL', KEYS[i]) < lifetime then redis.call('PEXPIRE', KEYS[i], lifetime) end
  end
end
if redis.call('GET', KEYS[2]) == ARGV[5] then redis.call('DEL', KEYS[2]) end
return 1`

/** Replaces the lock with the flight's outcome, if the lock is still ours. */
const SETTLE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
end
return 1`

/** Extends the lock's lease, if the lock is still ours; 1 when it was. */
const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`

/** Deletes a refused entry, unless another gateway has stored a new one since it was read. */
const DROP_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`

/** Drops the entries of the given tag sets and the sets, bumps the purge epoch and announces it. */
const PURGE_TAGS_SCRIPT = `
local epoch = redis.call('INCR', KEYS[1])
local count = 0
for i = 2, #KEYS do
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[i])) do
    count = count + redis.call('UNLINK', ARGV[1] .. member)
  end
  redis.call('UNLINK', KEYS[i])
end
redis.call('PUBLISH', ARGV[2], ARGV[3] .. epoch .. '}')
return count`

export interface TierCommands {
  storeEntry(...args: (string | number)[]): Promise<unknown>
  settleLock(key: string, token: string, outcome: string, ms: number): Promise<unknown>
  renewLock(key: string, token: string, ms: number): Promise<number>
  dropEntry(key: string, stored: string): Promise<unknown>
  purgeTags(...args: (string | number)[]): Promise<number>
}

/** The command connection with the tier's scripts as commands of its own. */
export function withTierCommands(command: Redis): Redis & TierCommands {
  command.defineCommand('storeEntry', { lua: STORE_SCRIPT })
  command.defineCommand('settleLock', { lua: SETTLE_SCRIPT, numberOfKeys: 1 })
  command.defineCommand('renewLock', { lua: RENEW_SCRIPT, numberOfKeys: 1 })
  command.defineCommand('dropEntry', { lua: DROP_SCRIPT, numberOfKeys: 1 })
  command.defineCommand('purgeTags', { lua: PURGE_TAGS_SCRIPT })
  return command as Redis & TierCommands
}
