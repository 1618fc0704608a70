import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/lib/config.ts';

// Issue 30: a typo in a database address is a refusal to start, naming the setting, never a replica quietly taken out
// of the reads (or a pool that fails request by request). The address is not repeated: it carries a password.
describe('DATABASE_URL, DATABASE_DIRECT_URL and DATABASE_REPLICA_URLS', () => {
  it('take postgres:// and postgresql:// URLs, a socket directory in the query too', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://bima_app:s3cret@pooler:6432/bima',
      DATABASE_DIRECT_URL: 'postgresql://postgres@db:5432/bima',
      DATABASE_REPLICA_URLS: ' postgres://r1:5432/bima , postgresql:///bima?host=/var/run/postgresql ',
    });
    expect(c.databaseUrl).toBe('postgres://bima_app:s3cret@pooler:6432/bima');
    expect(c.databaseDirectUrl).toBe('postgresql://postgres@db:5432/bima');
    expect(c.databaseReplicaUrls).toEqual(['postgres://r1:5432/bima', 'postgresql:///bima?host=/var/run/postgresql']);
    expect(loadConfig({}).databaseReplicaUrls).toEqual([]);
  });

  it('refuse anything else, naming the setting (and the replica entry) without repeating the value', () => {
    const secret = 'hunter2-not-to-be-logged';
    const cases: [Record<string, string>, RegExp][] = [
      [{ DATABASE_URL: `mysql://u:${secret}@h/db` }, /^DATABASE_URL takes a PostgreSQL URL/],
      [{ DATABASE_URL: `u:${secret}@h/db` }, /^DATABASE_URL takes a PostgreSQL URL/],
      [{ DATABASE_DIRECT_URL: `http://u:${secret}@h/db` }, /^DATABASE_DIRECT_URL takes a PostgreSQL URL/],
      [
        { DATABASE_REPLICA_URLS: `postgres://r1/db,r2:${secret}:5432/db` },
        /^DATABASE_REPLICA_URLS \(entry 2 of 2\) takes a PostgreSQL URL/,
      ],
      [{ DATABASE_REPLICA_URLS: `not a url ${secret}` }, /^DATABASE_REPLICA_URLS \(entry 1 of 1\)/],
    ];
    for (const [env, message] of cases) {
      let error: Error | undefined;
      try {
        loadConfig(env);
      } catch (e) {
        error = e as Error;
      }
      expect(error?.message, JSON.stringify(env)).toMatch(message);
      expect(error?.message).not.toContain(secret);
    }
  });
});
