/**
 * Audit anchors: a run's head (run id, last seq, last hash) and the time it was taken,
 * written to the service log when the run ends, so the chain can be checked against
 * something the database does not hold. Anyone who can write the database can rewrite
 * a chain and recompute every hash; they cannot reach back into logs already shipped.
 *
 * Anchors are signed with HMAC-SHA256 under a key read from a file
 * (KUBEWHY_AUDIT_KEY_FILE) that the database never holds, so a line added to the logs
 * later cannot pass as one. HMAC rather than Ed25519: the key is a plain random string
 * an operator makes with `openssl rand -hex 32` and keeps in one Secret, and whoever
 * runs `audit verify` is the operator who holds that Secret anyway. (With Ed25519 the
 * verifier would need only a public key; that separation is not needed here, and it
 * would cost a key-pair format to manage.)
 *
 * Without a key the heads are still logged, unsigned: they catch a truncated or
 * rewritten chain as long as the shipped logs themselves are trusted.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config.ts';
import type { AuditStore } from './audit-store.ts';
import { canonicalJson } from './canonical-json.ts';

/** The setting that names the key file. */
export const AUDIT_KEY_SETTING = 'KUBEWHY_AUDIT_KEY_FILE';

/** HMAC-SHA256 keys shorter than the hash's own 32 bytes weaken it. */
export const MIN_KEY_BYTES = 32;
const MAX_KEY_BYTES = 64 * 1024;

const SIGNATURE_PREFIX = 'hmac-sha256';
const SIGNED_CONTEXT = 'kubewhy-audit-anchor-v1\n';

/** What an anchor asserts: this run's chain reached `seq` with `hash` at `time`. */
export interface AuditAnchor {
  runId: string;
  seq: number;
  hash: string;
  /** ISO time the head was taken. */
  time: string;
  /** The head was taken as retention removed the run: its chain is gone on purpose. Signed with the rest. */
  retired?: boolean;
}

/** Signs anchors, or leaves them unsigned when no key is configured. */
export interface AnchorSigner {
  /** A short id of the key (a hash of it, never the key): says which key signed an anchor. Undefined when unsigned. */
  readonly keyId: string | undefined;
  sign(anchor: AuditAnchor): string | undefined;
}

/**
 * The fields a log line carries to anchor a run: `auditHead` ("<seq>:<hash>"),
 * `auditAnchoredAt` (ISO time) and, with a key, `auditAnchor` (the signature).
 */
export interface AnchorLogFields {
  auditHead: string;
  auditAnchoredAt: string;
  auditAnchor?: string;
}

/** An anchor signer that signs nothing (no key configured). */
export const unsignedAnchors: AnchorSigner = { keyId: undefined, sign: () => undefined };

/**
 * Reads an HMAC key from a file: its bytes, without surrounding whitespace (a key
 * written by `echo` ends with a newline). Throws ConfigError naming `setting` and the
 * path when the file cannot be read or holds fewer than 32 bytes.
 */
export function readAuditKey(path: string, setting: string = AUDIT_KEY_SETTING): Buffer {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new ConfigError(`${setting}: cannot read the audit key file ${path} (${reason})`);
  }
  const key = trimWhitespace(content);
  if (key.length < MIN_KEY_BYTES) {
    throw new ConfigError(
      `${setting}: the audit key in ${path} is ${key.length} bytes; it needs at least ${MIN_KEY_BYTES} (make one with: openssl rand -hex 32)`,
    );
  }
  if (key.length > MAX_KEY_BYTES) {
    throw new ConfigError(
      `${setting}: ${path} is ${key.length} bytes, too large for an audit key (at most ${MAX_KEY_BYTES})`,
    );
  }
  return key;
}

export function createAnchorSigner(key: Buffer | undefined): AnchorSigner {
  if (!key) return unsignedAnchors;
  const keyId = keyIdOf(key);
  return { keyId, sign: (anchor) => `${SIGNATURE_PREFIX}:${keyId}:${macOf(anchor, key)}` };
}

/** A short public id of a key: the first 16 hex digits of its sha256. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('kubewhy-audit-key-id\n').update(key).digest('hex').slice(0, 16);
}

/**
 * The anchor fields of a run's current head, for its log line; empty when the run has
 * no audit events (nothing to anchor).
 */
export async function anchorLogFields(input: {
  audit: Pick<AuditStore, 'head'>;
  runId: string;
  signer: AnchorSigner;
  now?: Date;
}): Promise<AnchorLogFields | Record<string, never>> {
  const head = await input.audit.head(input.runId);
  if (!head) return {};
  const anchor: AuditAnchor = {
    runId: input.runId,
    seq: head.seq,
    hash: head.hash,
    time: (input.now ?? new Date()).toISOString(),
  };
  const signature = input.signer.sign(anchor);
  return {
    auditHead: `${head.seq}:${head.hash}`,
    auditAnchoredAt: anchor.time,
    ...(signature ? { auditAnchor: signature } : {}),
  };
}

export type SignatureCheck = { valid: true } | { valid: false; problem: string };

/** Checks an anchor's signature with `key`, in constant time. */
export function checkAnchorSignature(anchor: AuditAnchor, signature: string, key: Buffer): SignatureCheck {
  const [prefix, keyId, mac, ...rest] = signature.split(':');
  if (
    prefix !== SIGNATURE_PREFIX ||
    keyId === undefined ||
    mac === undefined ||
    rest.length > 0 ||
    !/^[0-9a-f]{64}$/.test(mac)
  ) {
    return { valid: false, problem: `the signature is not of the form ${SIGNATURE_PREFIX}:<key id>:<64 hex digits>` };
  }
  const expected = Buffer.from(macOf(anchor, key), 'hex');
  if (timingSafeEqual(expected, Buffer.from(mac, 'hex'))) return { valid: true };
  const ownId = keyIdOf(key);
  const which = keyId === ownId ? `it claims this key (id ${ownId})` : `it names key id ${keyId}, this key is ${ownId}`;
  return { valid: false, problem: `the signature does not match the run id, head and time with this key (${which})` };
}

function macOf(anchor: AuditAnchor, key: Buffer): string {
  const body = canonicalJson({
    runId: anchor.runId,
    seq: anchor.seq,
    hash: anchor.hash,
    time: anchor.time,
    ...(anchor.retired ? { retired: true } : {}),
  });
  return createHmac('sha256', key).update(SIGNED_CONTEXT).update(body).digest('hex');
}

function trimWhitespace(content: Buffer): Buffer {
  const isSpace = (byte: number | undefined): boolean =>
    byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
  let start = 0;
  let end = content.length;
  while (start < end && isSpace(content[start])) start++;
  while (end > start && isSpace(content[end - 1])) end--;
  return content.subarray(start, end);
}

/**
 * The anchor fields of a run retention removed, for its "run retired" log line: the head
 * it had, marked retired under the signature, so `audit verify --anchors` can tell a run
 * retention removed from one removed by hand (which leaves no such line).
 */
export function retiredAnchorLogFields(input: {
  runId: string;
  seq: number;
  hash: string;
  retiredAt: string;
  signer: AnchorSigner;
}): AnchorLogFields & { auditRetired: true } {
  const anchor: AuditAnchor = {
    runId: input.runId,
    seq: input.seq,
    hash: input.hash,
    time: input.retiredAt,
    retired: true,
  };
  const signature = input.signer.sign(anchor);
  return {
    auditHead: `${input.seq}:${input.hash}`,
    auditAnchoredAt: input.retiredAt,
    auditRetired: true,
    ...(signature ? { auditAnchor: signature } : {}),
  };
}
