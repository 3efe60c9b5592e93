/**
 * `pulsegate keys rotate|list`: the ID-token signing keys. Rotation adds a new key per algorithm
 * that running servers sign with from their next token on (they read the active key from the
 * database); the previous keys stay published until the ID tokens they signed have expired.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { keyEncryptionKey } from '../domain/key-sealing.js';
import { systemClock } from '../services/clock.js';
import { SigningKeyService } from '../services/provider/signing-keys.js';
import { SigningKeyStore } from '../store/signing-keys.js';
import { openStore } from '../store/store.js';
import { UsageError } from './data-commands.js';

export const KEYS_USAGE = `  keys rotate               Add new ID-token signing keys; old ones stay published until
                            their tokens expire
  keys list                 List the signing keys (kid, algorithm, created, state)
`;

export async function runKeysCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      'database-url': { type: 'string' },
      'key-encryption-key': { type: 'string' },
    },
    allowPositionals: true,
  });
  const [action, extra] = positionals;
  if (extra !== undefined || (action !== 'rotate' && action !== 'list')) {
    throw new UsageError('usage: pulsegate keys rotate|list [--database-url URL]');
  }
  const config = loadConfig({
    databaseUrl: values['database-url'],
    keyEncryptionKey: values['key-encryption-key'],
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
