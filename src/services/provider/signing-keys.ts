/**
 * ID-token signing keys: generated on first start, stored with the private half sealed (see
 * domain/key-sealing), rotated on demand. Every process over one database reads the active key
 * from it when signing, so a rotation made by `pulsegate keys rotate` (another process) is picked
 * up by the next token; decoded keys are cached by kid, which never changes meaning.
 */
import {
  type CryptoKey,
  type JWK,
  calculateJwkThumbprint,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importPKCS8,
} from 'jose';
import { unseal, seal } from '../../domain/key-sealing.js';
import { ID_TOKEN_ALGS, type IdTokenAlg } from '../../domain/oidc.js';
import { publishedKeys } from '../../domain/signing-keys.js';
import type { OAuthSigningKeyRow } from '../../store/schema.js';
import type { SigningKeyStore } from '../../store/signing-keys.js';
import type { Clock } from '../clock.js';

export interface SigningKey {
  kid: string;
  alg: IdTokenAlg;
  key: CryptoKey;
}

export class SigningKeyService {
  private readonly decoded = new Map<string, Promise<CryptoKey>>();

  constructor(
    private readonly store: SigningKeyStore,
    private readonly clock: Clock,
    /** Derived key-encryption key, or null to store private keys unsealed. */
    private readonly kek: Buffer | null,
  ) {}

  /**
   * Makes sure every algorithm has a key, and that the active ones can be opened with this
   * configuration (a wrong key-encryption key fails the start, not the first sign-in). Safe to
   * run in several processes at once: generation 1 is inserted by exactly one of them.
   */
  async ensure(): Promise<void> {
    for (const alg of ID_TOKEN_ALGS) {
      if (!(await this.store.active(alg))) await this.addGeneration(alg, 1);
      await this.signingKey(alg);
    }
  }

  /**
   * A new key per algorithm; the previous ones stay published until their last ID tokens expire.
   * Keys past that point are deleted. Returns the new kids.
   */
  async rotate(): Promise<string[]> {
    await this.ensure();
    const kids: string[] = [];
    for (const alg of ID_TOKEN_ALGS) {
      const current = await this.store.active(alg);
      const kid = await this.addGeneration(alg, (current?.generation ?? 0) + 1);
      if (kid) kids.push(kid);
    }
    await this.prune();
    return kids;
  }

  /** The JWKS: public keys still needed by someone verifying an ID token. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const rows = await this.store.all();
    return { keys: this.published(rows).map((row) => publicJwk(row)) };
  }

  /** Stored keys with their state, for `pulsegate keys list`. */
  async list(): Promise<Array<{ kid: string; alg: string; createdAt: number; state: string }>> {
    const rows = await this.store.all();
    const published = new Set(this.published(rows).map((r) => r.kid));
    const active = new Set(
      ID_TOKEN_ALGS.map(
        (alg) =>
          rows.filter((r) => r.alg === alg).sort((a, b) => b.generation - a.generation)[0]?.kid,
      ),
    );
    return rows.map((r) => ({
      kid: r.kid,
      alg: r.alg,
      createdAt: r.created_at,
      state: active.has(r.kid) ? 'active' : published.has(r.kid) ? 'published' : 'expired',
    }));
  }

  async signingKey(alg: IdTokenAlg): Promise<SigningKey> {
    const row = await this.store.active(alg);
    if (!row) throw new Error(`no ${alg} signing key: the server did not start properly`);
    let key = this.decoded.get(row.kid);
    if (!key) {
      key = importPKCS8(unseal(row.private_key, this.kek, row.kid), alg);
      // A failure (wrong key-encryption key) is not cached: the next attempt reports it again.
      key.catch(() => this.decoded.delete(row.kid));
      this.decoded.set(row.kid, key);
    }
    return { kid: row.kid, alg, key: await key };
  }

  private published(rows: OAuthSigningKeyRow[]): OAuthSigningKeyRow[] {
    const keys = rows.map((row) => ({ row, ...generationOf(row) }));
    return publishedKeys(keys, this.clock.now()).map((k) => k.row);
  }

  private async addGeneration(alg: IdTokenAlg, generation: number): Promise<string | null> {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(jwk);
    const stored = await this.store.insertGeneration({
      kid,
      alg,
      generation,
      publicJwk: JSON.stringify(jwk),
      privateKey: seal(await exportPKCS8(privateKey), this.kek, kid),
      createdAt: this.clock.now(),
    });
    return stored ? kid : null;
  }

  /** Deletes keys (private halves included) that no live ID token can refer to any more. */
  private async prune(): Promise<void> {
    const rows = await this.store.all();
    const keep = new Set(this.published(rows).map((r) => r.kid));
    await this.store.delete(rows.filter((r) => !keep.has(r.kid)).map((r) => r.kid));
    for (const row of rows) if (!keep.has(row.kid)) this.decoded.delete(row.kid);
  }
}

function generationOf(row: OAuthSigningKeyRow) {
  return { kid: row.kid, alg: row.alg, generation: row.generation, createdAt: row.created_at };
}

function publicJwk(row: OAuthSigningKeyRow): JWK {
  const jwk = JSON.parse(row.public_jwk) as JWK;
  return { ...jwk, kid: row.kid, alg: row.alg, use: 'sig' };
}
