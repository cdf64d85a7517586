import { argon2id, hash, verify } from 'argon2';
import { newSecret } from './secrets.js';

/**
 * Passwords of travellers, company staff and administrators: argon2id hashes with the library's
 * current settings.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { type: argon2id });
}

export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    // A stored value that is not an argon2 hash never matches.
    return false;
  }
}

let dummy: Promise<string> | undefined;

/**
 * A hash of a random secret with the current settings: an unknown e-mail is checked against it,
 * so its answer costs the same argon2 verification as a real account's.
 */
export function unknownAccountHash(): Promise<string> {
  dummy ??= hashPassword(newSecret());
  return dummy;
}
