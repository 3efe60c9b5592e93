/**
 * `pulsegate keys rotate|list`: the ID-token signing keys. Rotation adds a new key per algorithm
 * that running servers sign with from their next token on (they read the active key from the
 * database); the previous keys stay published until the ID tokens they signed have expired.
 */
import { loadConfig } from '../config.js';
import { keyEncryptionKey } from '../domain/key-sealing.js';
import { systemClock } from '../services/clock.js';
import { SigningKeyService } from '../services/provider/signing-keys.js';
import { SigningKeyStore } from '../store/signing-keys.js';
import { openStore } from '../store/store.js';
import { type CommandSpec, LOG_LEVEL_OPTION, UsageError, parseCommand, usageOf } from './usage.js';

export const KEYS: CommandSpec = {
  name: 'keys',
  synopsis: 'keys rotate|list',
  summary: 'Rotate or list the ID-token signing keys.',
  about:
    'rotate adds a new key per algorithm; running servers sign with it from their next token on,\n' +
    'and the previous keys stay published until the ID tokens they signed have expired.\n' +
    'list prints each key: kid, algorithm, created, state.',
  options: {
    'database-url': {
      type: 'string',
      value: 'URL',
      help: 'sqlite:<path> (default sqlite:./data/pulsegate.db) or postgres://…\n(env DATABASE_URL)',
    },
    'key-encryption-key': {
      type: 'string',
      value: 'KEY',
      help: 'Seals the signing keys in the database\n(env PULSEGATE_KEY_ENCRYPTION_KEY; prefer the environment)',
    },
    ...LOG_LEVEL_OPTION,
  },
  positionals: 1,
};

export async function runKeysCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(KEYS, args);
  const [action] = positionals;
  if (action !== 'rotate' && action !== 'list') {
    throw new UsageError(
      action === undefined ? 'keys needs rotate or list' : `unknown command: keys ${action}`,
      usageOf(KEYS),
    );
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const config = loadConfig({
    databaseUrl: str(values['database-url']),
    keyEncryptionKey: str(values['key-encryption-key']),
    logLevel: str(values['log-level']),
  });
  const store = await openStore(config.databaseUrl);
  try {
    const kek = config.keyEncryptionKey === null ? null : keyEncryptionKey(config.keyEncryptionKey);
    const keys = new SigningKeyService(new SigningKeyStore(store.db), systemClock, kek);
    if (action === 'rotate') {
      const added = await keys.rotate();
      process.stdout.write(
        added.length > 0
          ? `new signing keys: ${added.join(', ')}\n`
          : 'another process rotated at the same moment; nothing added\n',
      );
    }
    for (const key of await keys.list()) {
      const created = new Date(key.createdAt).toISOString();
      process.stdout.write(`${key.kid}  ${key.alg}  ${created}  ${key.state}\n`);
    }
  } finally {
    await store.close();
  }
  return 0;
}
