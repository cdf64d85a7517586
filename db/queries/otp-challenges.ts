import type { Database } from '../orm.js';

/** Reads of traveller sign-in codes (otp_challenges) and of the chats a code may be sent to. */

/** The phone's newest challenge still open: a local code (its hash kept here) or a provider's. */
export interface OpenChallenge {
  id: string;
  local: boolean;
  expired: boolean;
}

interface OpenChallengeRow {
  id: string;
  local: boolean;
  expired: boolean;
}

const toOpenChallenge = (row: OpenChallengeRow): OpenChallenge => ({
  id: row.id,
  local: row.local,
  expired: row.expired,
});

export async function openChallenge(db: Database, phone: string): Promise<OpenChallenge | null> {
  const [row] = await db.query<OpenChallengeRow>(
    `select id, code_hash is not null as local, expires_at <= now() as expired
     from otp_challenges where phone = $1 and consumed_at is null
     order by created_at desc limit 1`,
    [phone],
  );
  return row ? toOpenChallenge(row) : null;
}

interface LinkedChatRow {
  chat_id: string;
}

/** The chat linked to a phone number (chatapp_links), where the chat bot may send its codes. */
export async function linkedChat(db: Database, phone: string): Promise<string | null> {
  const [row] = await db.query<LinkedChatRow>('select chat_id from chatapp_links where phone = $1', [phone]);
  return row?.chat_id ?? null;
}
